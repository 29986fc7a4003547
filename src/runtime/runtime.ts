import type { Caller } from '../domain/caller';
import type { Job } from '../domain/job';
import type { SchedulerState } from '../domain/schedulerState';
import type { Backfill } from '../store/slots';
import type { WatchedCronJobRuntime } from './kubernetes/watchedCronJobActions';

/** Which runtime fires jobs: `local` (this process) or `kubernetes` (the cluster's CronJobs). */
export type RuntimeKind = 'local' | 'kubernetes';

/**
 * Where a job's change comes from. `by`: the person it is made for (SERVICE_AUTH=kubernetes), whose
 * own credentials a runtime that writes a cluster writes it with; null or absent, the service's.
 * `created`: the change creates the job.
 */
export interface JobChange {
  by?: Caller | null;
  created?: boolean;
}

/**
 * What fires and runs jobs. The local runtime does it in this process; the Kubernetes runtime
 * hands it to CronJobs through an API server. The use cases tell the runtime about every change
 * and nothing above this interface knows which runtime is active.
 *
 * Every call can fail (an API server can refuse or be unreachable): a rejection reaches the API
 * caller as an error answer, and the use case that called rolls its own write back, so the stored
 * jobs and what the runtime was told never disagree. A runtime that cannot do what it was asked
 * rejects with `RuntimeRefusedError`.
 */
export interface Runtime {
  start(): Promise<void>;
  /** Stops firing; lets running jobs finish within the grace period, then records them as failed. */
  stop(): Promise<void>;
  /**
   * Whether `jobSaved` only changes this process's memory and is never refused (the local
   * runtime): a creation may then commit its jobs first and tell the runtime after. A runtime that
   * writes elsewhere (an API server) is told inside the writing transaction, which its refusal
   * rolls back.
   */
  readonly savesInMemory: boolean;
  /**
   * A job was created, replaced or switched on or off. `rowVersion`, when the writer read it back
   * (store/jobs.ts `StoredJob`), is the version of the row saved: a runtime that reloads the jobs
   * whose version moved (the local one) need not read this one again.
   */
  jobSaved(job: Job, rowVersion?: string, change?: JobChange): Promise<void>;
  /** `by` as in JobChange. */
  jobDeleted(jobId: number, by?: Caller | null): Promise<void>;
  /**
   * A job's alert policy suspended it, or a person resumed it (`job.enabled` says which): the
   * runtime fires it, or stops firing it, accordingly. Called after the change has committed.
   */
  suspensionChanged(job: Job): Promise<void>;
  /**
   * Starts a run outside the schedule without waiting for it; the next scheduled run is kept. `by`
   * as in JobChange: the run is theirs (`triggeredBy`).
   */
  runNow(job: Job, by?: Caller | null): Promise<void>;
  /**
   * A backfill was recorded (committed) for `job`: run each of its slots once, as the run of that
   * slot, at most `backfill.concurrency` at a time (docs/slots.md).
   */
  backfill(job: Job, backfill: Backfill, by?: Caller | null): Promise<void>;
  /**
   * Refuses, before it is recorded, a backfill of `job` that the cluster would not let `by` start
   * (a runtime whose runs someone else starts later: the controller). Absent: nothing to check.
   */
  checkBackfill?(job: Job, by: Caller): Promise<void>;
  /**
   * Whether a backfill asked for by a caller has its runs made with the caller's own credentials
   * by `backfill` itself (suspended Jobs on a cluster, which the controller resumes), rather than
   * later by someone else as themselves.
   */
  readonly makesBackfillRunsAsCaller?: boolean;
  /** The scheduler was paused or resumed. */
  schedulerChanged(state: SchedulerState): Promise<void>;
  /** Run now and the toggle of a watched CronJob's job (issue 40); absent where there is no cluster. */
  readonly watchedCronJobs?: WatchedCronJobRuntime;
}
