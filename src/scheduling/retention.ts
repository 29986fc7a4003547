import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import type { Logger } from '../logging/logger';
import { pruneExecutions } from '../store/executions';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes executions older than the retention period. Counters are untouched: they only grow. */
export async function pruneHistory(pool: Pool, clock: Clock, retentionDays: number): Promise<number> {
  return pruneExecutions(pool, new Date(clock.now().getTime() - retentionDays * DAY_MS));
}

/** Prunes shortly after start and then once a day. Returns a function that stops it. */
export function scheduleRetention(
  pool: Pool,
  clock: Clock,
  retentionDays: number,
  logger: Logger,
): () => void {
  const run = () => {
    pruneHistory(pool, clock, retentionDays)
      .then((removed) => removed > 0 && logger.info('pruned old executions', { removed, retentionDays }))
      .catch((error) =>
        logger.warn('pruning old executions failed; will try again tomorrow', { err: error }),
      );
  };
  const first = setTimeout(run, 60_000).unref();
  const daily = setInterval(run, DAY_MS).unref();
  return () => {
    clearTimeout(first);
    clearInterval(daily);
  };
}
