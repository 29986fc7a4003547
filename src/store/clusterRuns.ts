import type { FailureReason } from '../domain/execution';
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
  /** What the controller saw of the run's pods (OOMKilled, Evicted...), migration 016. */
  reason: FailureReason | null;
  /** The report key of the execution that closed the run, if one did. */
  closingKey: string | null;
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
    reason: string | null;
    reason_message: string | null;
    closing_key: string | null;
  }>(
    prepared(
      'claim_job_cluster_runs',
      `SELECT run_uid, job_id, closed_by, seen_by_controller, reason, reason_message, closing_key
       FROM claim_job_cluster_runs($1::text[])`,
      [runUids],
    ),
  );
  return rows.map((row) => ({
    runUid: row.run_uid,
    jobId: row.job_id,
    closedBy: row.closed_by,
    seenByController: row.seen_by_controller,
    reason: row.reason === null ? null : { code: row.reason, message: row.reason_message ?? '' },
    closingKey: row.closing_key,
  }));
}

/**
 * Marks runs closed for their jobs (claimed by `claimClusterRuns` in the same transaction, and
 * found open), each with the report key of the execution that closes it. The controller closing a
 * run has seen its Kubernetes Job, and so its job.
 */
export async function closeClusterRuns(
  tx: Queryable,
  runs: readonly { runUid: string; jobId: number; closedBy: RunClosedBy; closingKey: string | null }[],
): Promise<void> {
  if (runs.length === 0) return;
  await tx.query(
    prepared(
      'close_job_cluster_runs',
      `INSERT INTO cluster_runs (run_uid, job_id, closed_by, closed_at, seen_by_controller, closing_key)
       SELECT run_uid, job_id, closed_by, now(), closed_by = 'controller', closing_key
         FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS t(run_uid, job_id, closed_by, closing_key)
       ON CONFLICT (run_uid, job_id) DO UPDATE
         SET closed_by = excluded.closed_by, closed_at = excluded.closed_at, closing_key = excluded.closing_key,
             seen_by_controller = cluster_runs.seen_by_controller OR excluded.seen_by_controller
         WHERE cluster_runs.closed_by IS NULL`,
      [
        runs.map((run) => run.runUid),
        runs.map((run) => run.jobId),
        runs.map((run) => run.closedBy),
        runs.map((run) => run.closingKey),
      ],
    ),
  );
}

/**
 * Keeps what the controller saw of a run's pods (`reason`; null: nothing wrong any more), on the
 * job's claim on the run, which it opens if need be. Call with the run claimed (`claimClusterRuns`)
 * in the same transaction.
 */
export async function saveRunReason(
  tx: Queryable,
  run: { runUid: string; jobId: number },
  reason: FailureReason | null,
): Promise<void> {
  await tx.query(
    `INSERT INTO cluster_runs (run_uid, job_id, closed_by, closed_at, seen_by_controller, reason, reason_message)
     VALUES ($1, $2, NULL, NULL, true, $3, $4)
     ON CONFLICT (run_uid, job_id) DO UPDATE SET reason = excluded.reason, reason_message = excluded.reason_message`,
    [run.runUid, run.jobId, reason?.code ?? null, reason?.message ?? null],
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
