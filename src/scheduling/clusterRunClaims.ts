import type { FailureReason } from '../domain/execution';
import type { Queryable } from '../store/database';
import { claimClusterRuns, closeClusterRuns, type RunClosedBy } from '../store/clusterRuns';

/** Where a run stands for the job that claims it, when its claim is settled. */
interface RunStanding {
  /** Who had closed the run for this job before (null while it is open for this job). */
  closedBefore: RunClosedBy | null;
  /** The controller saw the run's Kubernetes Job carry another job's id: it is not this job's. */
  ownedByAnotherJob: boolean;
}

/**
 * What recording an execution of a cluster run (one Kubernetes Job) claims. A run's outcome is
 * decided once per job: by its pod's final report, or by the controller when the Job ended
 * without one. Claims are per job, so that nothing sent with one job's token decides another's.
 */
export interface ClusterRunClaim {
  runUid: string;
  jobId: number;
  /** Who is recording. */
  by: RunClosedBy;
  /** This execution decides the run's outcome (a final report, or the controller's record). */
  closes: boolean;
  /** The execution's report key: a closing one is kept, so a reason that comes later finds it. */
  reportKey?: string;
  /**
   * Whether to record the execution, given where the run stands. A throw refuses it, and with it
   * the transaction.
   */
  admit(standing: RunStanding): boolean;
}

/** How a claim was settled. */
export interface ClaimSettlement {
  /** Whether to record the execution. */
  admitted: boolean;
  /** This claim closed the run (it was open for its job). */
  closed: boolean;
  /** What the controller saw of the run's pods (OOMKilled, Evicted...), if anything. */
  runReason: FailureReason | null;
}

/**
 * Settles claims in one transaction, in the order given, exactly as if each had come in a
 * transaction of its own after the one before: a claim sees the runs the claims before it closed.
 * Answers how each was settled. Two statements, however many claims.
 */
export async function settleClaims(
  tx: Queryable,
  claims: readonly ClusterRunClaim[],
): Promise<ClaimSettlement[]> {
  if (claims.length === 0) return [];
  const runUids = [...new Set(claims.map((claim) => claim.runUid))].sort();
  const closers = new Map<string, RunClosedBy>();
  const reasons = new Map<string, FailureReason>();
  /** Per run, the jobs the controller saw it as (one, unless its labels were rewritten). */
  const seenAs = new Map<string, Set<number>>();
  const see = (runUid: string, jobId: number) => {
    const jobs = seenAs.get(runUid) ?? new Set<number>();
    seenAs.set(runUid, jobs.add(jobId));
  };
  for (const row of await claimClusterRuns(tx, runUids)) {
    if (row.closedBy) closers.set(claimKey(row), row.closedBy);
    if (row.reason) reasons.set(claimKey(row), row.reason);
    if (row.seenByController) see(row.runUid, row.jobId);
  }
  const closing: { runUid: string; jobId: number; closedBy: RunClosedBy; closingKey: string | null }[] = [];
  const settled = claims.map((claim): ClaimSettlement => {
    const key = claimKey(claim);
    const closedBefore = closers.get(key) ?? null;
    const seen = seenAs.get(claim.runUid);
    const admit = claim.admit({
      closedBefore,
      ownedByAnotherJob: seen !== undefined && !seen.has(claim.jobId),
    });
    const closed = claim.closes && closedBefore === null;
    if (closed) {
      closers.set(key, claim.by);
      closing.push({
        runUid: claim.runUid,
        jobId: claim.jobId,
        closedBy: claim.by,
        closingKey: claim.reportKey ?? null,
      });
      if (claim.by === 'controller') see(claim.runUid, claim.jobId);
    }
    return { admitted: admit, closed, runReason: reasons.get(key) ?? null };
  });
  await closeClusterRuns(tx, closing);
  return settled;
}

function claimKey(claim: { runUid: string; jobId: number }): string {
  return `${claim.jobId}/${claim.runUid}`;
}
