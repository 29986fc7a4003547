/**
 * Calls `each` for the items in order, `perTurn` of them in one turn of the event loop, the next
 * ones after `setImmediate`: requests and timers get their turns in between. Resolves once all are
 * called.
 */
export async function inTurns<T>(
  items: readonly T[],
  perTurn: number,
  each: (item: T) => void,
): Promise<void> {
  for (let start = 0; start < items.length; start += perTurn) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const item of items.slice(start, start + perTurn)) each(item);
  }
}
