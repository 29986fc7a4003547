import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import type { Logger } from '../logging/logger';
import { pruneExecutions } from '../store/executions';
import { pruneSlots } from '../store/slots';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes executions older than the retention period, and the slot ledger with them (docs/slots.md).
 * Counters are untouched: they only grow. Answers how many executions went.
 */
export async function pruneHistory(pool: Pool, clock: Clock, retentionDays: number): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - retentionDays * DAY_MS);
  const removed = await pruneExecutions(pool, cutoff);
  await pruneSlots(pool, cutoff);
  return removed;
}

/** When retention runs: shortly after start, then daily; after a failed pass, again soon. */
export interface RetentionTiming {
  firstDelayMs: number;
  /** After a pass that failed (the database away): minutes, not a day of history left over. */
  retryDelayMs: number;
  intervalMs: number;
}

const DEFAULT_TIMING: RetentionTiming = {
  firstDelayMs: 60_000,
  retryDelayMs: 5 * 60_000,
  intervalMs: DAY_MS,
};

/**
 * Prunes shortly after start and then once a day; a pass that fails is tried again after
 * `retryDelayMs` until one succeeds. Returns a function that stops it.
 */
export function scheduleRetention(
  pool: Pool,
  clock: Clock,
  retentionDays: number,
  logger: Logger,
  timing: Partial<RetentionTiming> = {},
): () => void {
  const { firstDelayMs, retryDelayMs, intervalMs } = { ...DEFAULT_TIMING, ...timing };
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const after = (delayMs: number) => {
    if (!stopped) timer = setTimeout(run, delayMs).unref();
  };
  const run = () => {
    pruneHistory(pool, clock, retentionDays).then(
      (removed) => {
        if (removed > 0) logger.info('pruned old executions', { removed, retentionDays });
        after(intervalMs);
      },
      (error) => {
        logger.warn('pruning old executions failed; trying again soon', {
          err: error,
          retryInMs: retryDelayMs,
        });
        after(retryDelayMs);
      },
    );
  };
  after(firstDelayMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
