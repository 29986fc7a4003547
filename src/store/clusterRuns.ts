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

/** Who closed the run, or null while it is open. Call under `lockClusterRun`. */
export async function clusterRunClosedBy(tx: Queryable, runUid: string): Promise<RunClosedBy | null> {
  const { rows } = await tx.query<{ closed_by: RunClosedBy }>(
    'SELECT closed_by FROM cluster_runs WHERE run_uid = $1',
    [runUid],
  );
  return rows[0]?.closed_by ?? null;
}

/** Marks the run closed; a second close of the same run changes nothing. Call under the lock. */
export async function closeClusterRun(
  tx: Queryable,
  run: { runUid: string; jobId: number; closedBy: RunClosedBy },
): Promise<void> {
  await tx.query(
    'INSERT INTO cluster_runs (run_uid, job_id, closed_by) VALUES ($1, $2, $3) ON CONFLICT (run_uid) DO NOTHING',
    [run.runUid, run.jobId, run.closedBy],
  );
}
