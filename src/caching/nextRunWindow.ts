/** Longest a rendered job or job list is reused, even when nothing says it changed. */
const MAX_AGE_MS = 60_000;

/**
 * The clock times between which jobs rendered at `readAt` still show the right next runs: a job's
 * next run is the first fire time after now, so it stays the same until that time comes (when the
 * one after takes its place). A disabled job has none, and bounds nothing.
 */
export function nextRunWindow(
  readAt: number,
  nextRuns: Iterable<Date | null>,
): { validFrom: number; validUntil: number } {
  let validUntil = readAt + MAX_AGE_MS;
  for (const nextRun of nextRuns) {
    if (nextRun) validUntil = Math.min(validUntil, nextRun.getTime());
  }
  return { validFrom: readAt, validUntil };
}
