import type { Job } from '../domain/job';
import type { SchedulerState } from '../store/scheduler';

/**
 * What fires and runs jobs. The local runtime does it in this process; the Kubernetes runtime
 * hands it to CronJobs. The use cases tell the runtime about every change and nothing above this
 * interface knows which runtime is active.
 */
export interface Runtime {
  start(): Promise<void>;
  /** Stops firing; lets running jobs finish within the grace period, then records them as failed. */
  stop(): Promise<void>;
  /** A job was created, replaced or switched on or off. */
  jobSaved(job: Job): void;
  jobDeleted(jobId: number): void;
  /** Starts a run outside the schedule and returns at once; the next scheduled run is kept. */
  runNow(job: Job): void;
  /** The scheduler was paused or resumed. */
  schedulerChanged(state: SchedulerState): void;
  /** True while a run of the job (including its retries) is in progress. */
  isRunning(jobId: number): boolean;
}
