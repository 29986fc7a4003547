import { prepared, type Queryable } from './database';

/** Who recorded the outcome of a cluster run (one Kubernetes Job). */
export type RunClosedBy = 'report' | 'controller';

/**
 * Serialises the transactions that decide runs' outcomes: the pods' reports and the controller's
 * "this run never reported". Held until the transaction ends. Taken in the order given, which
 * callers keep sorted, so that two transactions taking several never wait on each other in a
 * circle.
 */
export async function lockClusterRuns(tx: Queryable, runUids: readonly string[]): Promise<void> {
  await tx.query(
    prepared(
      'lock_cluster_runs',
      `SELECT pg_advisory_xact_lock(hashtext('cluster-run:' || uid)) FROM unnest($1::text[]) AS uid`,
      [runUids],
    ),
  );
}

/**
 * Who had closed each of the runs; runs still open are absent. Call under `lockClusterRuns`, in a
 * statement after it, so that this one's snapshot sees what the locks' previous holders committed.
 */
export async function findRunClosers(
  tx: Queryable,
  runUids: readonly string[],
): Promise<Map<string, RunClosedBy>> {
  const { rows } = await tx.query<{ run_uid: string; closed_by: RunClosedBy }>(
    prepared(
      'find_run_closers',
      'SELECT c.run_uid, c.closed_by FROM unnest($1::text[]) AS u(uid) JOIN cluster_runs c ON c.run_uid = u.uid',
      [runUids],
    ),
  );
  return new Map(rows.map((row) => [row.run_uid, row.closed_by]));
}

/** Marks runs closed (under `lockClusterRuns`, after `findRunClosers` found them open). */
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
