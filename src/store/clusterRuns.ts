import { prepared, type Queryable } from './database';

/** Who recorded the outcome of a cluster run (one Kubernetes Job). */
export type RunClosedBy = 'report' | 'controller';

/**
 * Takes the runs' locks, then answers who had closed each (runs still open are absent): one round
 * trip (migration 011). The locks serialise the transactions that decide runs' outcomes, the pods'
 * reports and the controller's "this run never reported", until the transaction ends. They are
 * taken in the order given, which callers keep sorted, so that two transactions taking several
 * never wait on each other in a circle.
 */
export async function claimClusterRuns(
  tx: Queryable,
  runUids: readonly string[],
): Promise<Map<string, RunClosedBy>> {
  const { rows } = await tx.query<{ run_uid: string; closed_by: RunClosedBy }>(
    prepared('claim_cluster_runs', 'SELECT run_uid, closed_by FROM claim_cluster_runs($1::text[])', [
      runUids,
    ]),
  );
  return new Map(rows.map((row) => [row.run_uid, row.closed_by]));
}

/** Marks runs closed (claimed by `claimClusterRuns` in the same transaction, and found open). */
export async function closeClusterRuns(
  tx: Queryable,
  runs: readonly { runUid: string; jobId: number; closedBy: RunClosedBy }[],
): Promise<void> {
  if (runs.length === 0) return;
  await tx.query(
    prepared(
      'close_cluster_runs',
      `INSERT INTO cluster_runs (run_uid, job_id, closed_by)
       SELECT * FROM unnest($1::text[], $2::int[], $3::text[]) ON CONFLICT (run_uid) DO NOTHING`,
      [runs.map((run) => run.runUid), runs.map((run) => run.jobId), runs.map((run) => run.closedBy)],
    ),
  );
}
