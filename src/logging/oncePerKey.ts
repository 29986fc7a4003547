/**
 * What a warning about a request anyone can send goes through (a page of another site refused, a
 * pod report refused): each key (the Origin and Host, the kind of refusal) is logged the first time
 * it is seen, and at most `maxKeys` keys are, so that a flood of such requests writes a few lines
 * rather than one each. With `renewAfterMs` the keys are forgotten once that long has passed since
 * the first of them was logged, so that a refusal that goes on is logged again, once per period.
 */
export class OncePerKey {
  private readonly seen = new Set<string>();
  private periodStart: number | null = null;
  private skipped = 0;

  constructor(private readonly options: { maxKeys: number; renewAfterMs?: number }) {}

  /**
   * Whether to log `key` at clock time `now` (ms): the count of those not logged since the last
   * that was, or null when this one is not to be logged either.
   */
  admit(key: string, now = 0): { notLogged: number } | null {
    const { maxKeys, renewAfterMs } = this.options;
    if (renewAfterMs !== undefined && this.periodStart !== null && now - this.periodStart >= renewAfterMs) {
      this.seen.clear();
      this.periodStart = null;
    }
    if (this.seen.has(key) || this.seen.size >= maxKeys) {
      this.skipped++;
      return null;
    }
    this.seen.add(key);
    this.periodStart ??= now;
    const notLogged = this.skipped;
    this.skipped = 0;
    return { notLogged };
  }
}
