import type { Queryable } from './database';

/** Who recorded the outcome of a cluster run (one Kubernetes Job). */
export type RunClosedBy = 'report' | 'controller';

/**
 * Serialises the transactions that decide a run's outcome: the pod's reports and the controller's
 * "this run never reported". Held until the transaction ends.
 */
export async function lockClusterRun(tx: Queryable, runUid: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`cluster-run:${runUid}`]);
}

/**
 * Who had closed the run (null while it was open), and, when `close` is set and it was open,
 * marks it closed by `run.closedBy`: one statement, so a report costs one round trip less. Call
 * under `lockClusterRun`, in its own statement before this one, so that this one's snapshot sees
 * what the lock's previous holder committed.
 */
export async function closeClusterRunIfOpen(
  tx: Queryable,
  run: { runUid: string; jobId: number; closedBy: RunClosedBy },
  close: boolean,
): Promise<RunClosedBy | null> {
  const { rows } = await tx.query<{ closed_by: RunClosedBy | null }>(
    `WITH previous AS (SELECT closed_by FROM cluster_runs WHERE run_uid = $1),
     closing AS (
       INSERT INTO cluster_runs (run_uid, job_id, closed_by)
       SELECT $1, $2, $3 WHERE $4 AND NOT EXISTS (SELECT 1 FROM previous)
       ON CONFLICT (run_uid) DO NOTHING
     )
     SELECT (SELECT closed_by FROM previous) AS closed_by`,
    [run.runUid, run.jobId, run.closedBy, close],
  );
  return rows[0]?.closed_by ?? null;
}
