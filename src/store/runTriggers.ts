import type { Queryable } from './database';

/** How long a run's trigger is kept: far longer than any run can go on reporting. */
const KEPT_DAYS = 31;

/**
 * Records who started a cluster run by hand (the Kubernetes Job of a run now, by its UID): the
 * executions its pod reports take the name (`insertFinishedExecutions`, migration 025). Rows older
 * than a month go in the same statement.
 */
export async function recordRunTrigger(
  db: Queryable,
  trigger: { runUid: string; jobId: number; triggeredBy: string },
): Promise<void> {
  await db.query(
    `WITH pruned AS (DELETE FROM run_triggers WHERE created_at < now() - make_interval(days => $4))
     INSERT INTO run_triggers (run_uid, job_id, triggered_by) VALUES ($1, $2, $3)
     ON CONFLICT (run_uid, job_id) DO NOTHING`,
    [trigger.runUid, trigger.jobId, trigger.triggeredBy, KEPT_DAYS],
  );
}

/** Records who asked for a backfill: the executions of its runs take the name (migration 025). */
export async function recordBackfillRequester(
  db: Queryable,
  backfillId: number,
  requestedBy: string,
): Promise<void> {
  await db.query('UPDATE slot_backfills SET requested_by = $2 WHERE id = $1', [backfillId, requestedBy]);
}
