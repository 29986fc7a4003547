import type { Queryable } from '../store/database';
import { claimClusterRuns, closeClusterRuns, type RunClosedBy } from '../store/clusterRuns';

/**
 * What recording an execution of a cluster run (one Kubernetes Job) claims. A run's outcome is
 * decided once: by its pod's final report, or by the controller when the Job ended without one.
 */
export interface ClusterRunClaim {
  runUid: string;
  jobId: number;
  /** Who is recording. */
  by: RunClosedBy;
  /** This execution decides the run's outcome (a final report, or the controller's record). */
  closes: boolean;
  /**
   * Whether to record the execution, given who had closed the run before it (null while open).
   * A throw refuses it, and with it the transaction.
   */
  admit(closedBefore: RunClosedBy | null): boolean;
}

/**
 * Settles claims in one transaction, in the order given, exactly as if each had come in a
 * transaction of its own after the one before: a claim sees the runs the claims before it closed.
 * Answers whether each execution is recorded. Two statements, however many claims.
 */
export async function settleClaims(tx: Queryable, claims: readonly ClusterRunClaim[]): Promise<boolean[]> {
  if (claims.length === 0) return [];
  const runUids = [...new Set(claims.map((claim) => claim.runUid))].sort();
  const closers = await claimClusterRuns(tx, runUids);
  const closing: { runUid: string; jobId: number; closedBy: RunClosedBy }[] = [];
  const admitted = claims.map((claim) => {
    const closedBefore = closers.get(claim.runUid) ?? null;
    const admit = claim.admit(closedBefore);
    if (claim.closes && closedBefore === null) {
      closers.set(claim.runUid, claim.by);
      closing.push({ runUid: claim.runUid, jobId: claim.jobId, closedBy: claim.by });
    }
    return admit;
  });
  await closeClusterRuns(tx, closing);
  return admitted;
}
