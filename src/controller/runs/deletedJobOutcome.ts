import type { V1CronJob, V1Job } from '@kubernetes/client-node';
import type { FailureReason } from '../../domain/execution';
import {
  type FinishedJob,
  finishedJob,
  runWaitingSince,
  SCHEDULED_TIMESTAMP_ANNOTATION,
  toDate,
} from './jobOutcome';

/** A run whose Job the CronJob controller deleted to start the next fire time's (Replace). */
export const REPLACED: FailureReason = {
  code: 'Replaced',
  message:
    'a newer run replaced this one before it ended (concurrencyPolicy: Replace): the CronJob controller deleted its Kubernetes Job',
};

/** A run whose Job was deleted while it ran, by someone else than the CronJob controller. */
export const JOB_DELETED: FailureReason = {
  code: 'JobDeleted',
  message: 'its Kubernetes Job was deleted before the run ended (by hand, or with its CronJob)',
};

/**
 * How the run of a Kubernetes Job that was deleted before its run was recorded ended, from the Job
 * as last seen (the delete event's object). One that had finished ended as its conditions say
 * (finishedJob): the CronJob controller deletes the finished Jobs past its history limits within a
 * second of their end, long before a late report's grace is over. One deleted while it ran failed
 * when it was deleted (`deletedAt`): `Replaced` when the CronJob controller deleted it to start a
 * newer run (replacedByNewerRun), `JobDeleted` otherwise.
 */
export function deletedJobOutcome(job: V1Job, deletedAt: Date, cronJob: V1CronJob | undefined): FinishedJob {
  const finished = finishedJob(job);
  if (finished) return finished;
  const startedAt = runWaitingSince(job) ?? deletedAt;
  return {
    status: 'failed',
    startedAt: startedAt.getTime() > deletedAt.getTime() ? deletedAt : startedAt,
    finishedAt: deletedAt,
    reason: replacedByNewerRun(cronJob, job) ? REPLACED : JOB_DELETED,
  };
}

/**
 * Whether an unfinished Job that is gone was deleted by its CronJob's controller to start a newer
 * run in its place. Under `concurrencyPolicy: Replace`, when a fire time comes it deletes the Jobs
 * of `status.active` (the Jobs it scheduled: a manual, catch-up or backfill Job is never among
 * them), creates the new one and moves `lastScheduleTime` to its fire time: past the deleted Job's.
 */
export function replacedByNewerRun(cronJob: V1CronJob | undefined, job: V1Job): boolean {
  if (cronJob?.spec?.concurrencyPolicy !== 'Replace') return false;
  const scheduledFor = toDate(job.metadata?.annotations?.[SCHEDULED_TIMESTAMP_ANNOTATION]);
  const lastScheduled = toDate(cronJob.status?.lastScheduleTime);
  return scheduledFor !== null && lastScheduled !== null && lastScheduled.getTime() > scheduledFor.getTime();
}
