import { prepared, type Queryable } from './database';

/** Who recorded the outcome of a cluster run (one Kubernetes Job). */
export type RunClosedBy = 'report' | 'controller';

/** One job's claim on a cluster run (migration 012). */
export interface ClusterRunClaimRow {
  runUid: string;
  jobId: number;
  /** Who closed the run for this job; null while it is open. */
  closedBy: RunClosedBy | null;
  /** The controller saw the Kubernetes Job carry this job's id: the run is this job's. */
  seenByController: boolean;
}

/**
 * Takes the runs' locks, then answers every job's claim on each (runs nobody claimed are absent):
 * one round trip (migrations 011, 012). The locks serialise the transactions that decide runs'
 * outcomes, the pods' reports and the controller's "this run never reported", until the
 * transaction ends. They are taken in the order given, which callers keep sorted, so that two
 * transactions taking several never wait on each other in a circle.
 */
export async function claimClusterRuns(
  tx: Queryable,
  runUids: readonly string[],
): Promise<ClusterRunClaimRow[]> {
  const { rows } = await tx.query<{
    run_uid: string;
    job_id: number;
    closed_by: RunClosedBy | null;
    seen_by_controller: boolean;
  }>(
    prepared(
      'claim_job_cluster_runs',
      'SELECT run_uid, job_id, closed_by, seen_by_controller FROM claim_job_cluster_runs($1::text[])',
      [runUids],
    ),
  );
  return rows.map((row) => ({
    runUid: row.run_uid,
    jobId: row.job_id,
    closedBy: row.closed_by,
    seenByController: row.seen_by_controller,
  }));
}

/**
 * Marks runs closed for their jobs (claimed by `claimClusterRuns` in the same transaction, and
 * found open). The controller closing a run has seen its Kubernetes Job, and so its job.
 */
export async function closeClusterRuns(
  tx: Queryable,
  runs: readonly { runUid: string; jobId: number; closedBy: RunClosedBy }[],
): Promise<void> {
  if (runs.length === 0) return;
  await tx.query(
    prepared(
      'close_job_cluster_runs',
      `INSERT INTO cluster_runs (run_uid, job_id, closed_by, closed_at, seen_by_controller)
       SELECT run_uid, job_id, closed_by, now(), closed_by = 'controller'
         FROM unnest($1::text[], $2::int[], $3::text[]) AS t(run_uid, job_id, closed_by)
       ON CONFLICT (run_uid, job_id) DO UPDATE
         SET closed_by = excluded.closed_by, closed_at = excluded.closed_at,
             seen_by_controller = cluster_runs.seen_by_controller OR excluded.seen_by_controller
         WHERE cluster_runs.closed_by IS NULL`,
      [runs.map((run) => run.runUid), runs.map((run) => run.jobId), runs.map((run) => run.closedBy)],
    ),
  );
}

/**
 * Notes that the controller saw Kubernetes Job `runUid` carry job `jobId`'s id, before its pod
 * reports: from then on, a report sent with another job's token that names the run is refused.
 */
export async function markRunSeen(db: Queryable, runUid: string, jobId: number): Promise<void> {
  await db.query(
    prepared(
      'mark_cluster_run_seen',
      `INSERT INTO cluster_runs (run_uid, job_id, closed_by, closed_at, seen_by_controller)
       VALUES ($1, $2, NULL, NULL, true)
       ON CONFLICT (run_uid, job_id) DO UPDATE SET seen_by_controller = true
         WHERE NOT cluster_runs.seen_by_controller`,
      [runUid, jobId],
    ),
  );
}
