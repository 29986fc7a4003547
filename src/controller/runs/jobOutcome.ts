import type { V1CronJob, V1Job, V1JobCondition } from '@kubernetes/client-node';
import { checkCron, nextFireTime } from '../../domain/cron';
import type { FailureReason } from '../../domain/execution';

/**
 * Set on a Job the controller ended before its run could start (startDeadline.ts), with the
 * reason's code: the Job then fails as `DeadlineExceeded`, but its run failed, it did not time out.
 */
export const ENDED_BEFORE_START_ANNOTATION = 'crondeck.dev/ended-before-start';

/** Set by the CronJob controller on the Jobs it creates: the fire time the Job is for. */
export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

export interface FinishedJob {
  status: 'success' | 'failed' | 'timeout';
  startedAt: Date;
  finishedAt: Date;
  /** The Job's condition, e.g. DeadlineExceeded, "Job was active longer than specified deadline". */
  reason: FailureReason;
}

/**
 * How a Kubernetes Job (one run) ended, from its conditions (transcript 09-job-pod): `Complete`
 * (reason CompletionsReached), or `Failed` with BackoffLimitExceeded (the pod failed) or
 * DeadlineExceeded (activeDeadlineSeconds: the run took too long, unless the controller ended it
 * because it could not start: startDeadline.ts). Null while it runs.
 */
export function finishedJob(job: V1Job): FinishedJob | null {
  const conditions = job.status?.conditions ?? [];
  const ended = (type: string): V1JobCondition | undefined =>
    conditions.find((condition) => condition.type === type && condition.status === 'True');
  const condition = ended('Complete') ?? ended('Failed');
  if (!condition) return null;
  const finishedAt = toDate(job.status?.completionTime ?? condition.lastTransitionTime) ?? new Date(0);
  const startedAt = toDate(job.status?.startTime ?? job.metadata?.creationTimestamp) ?? finishedAt;
  // A Job the controller ended because its run could not start failed; it did not run too long.
  const endedBeforeStart = job.metadata?.annotations?.[ENDED_BEFORE_START_ANNOTATION] !== undefined;
  const status =
    condition.type === 'Complete'
      ? 'success'
      : condition.reason === 'DeadlineExceeded' && !endedBeforeStart
        ? 'timeout'
        : 'failed';
  return {
    status,
    startedAt,
    finishedAt,
    reason: { code: condition.reason || condition.type, message: condition.message ?? '' },
  };
}

/**
 * Whether a Job ran nothing: suspended since it was made (a backfill's Jobs made by a caller's
 * token wait so until the controller resumes them), never started, no pod ever counted or seen.
 * Deleted so, it is no run at all, rather than one that failed.
 */
export function neverStarted(job: V1Job, pods: readonly unknown[]): boolean {
  const status = job.status ?? {};
  return (
    job.spec?.suspend === true &&
    !status.startTime &&
    !status.succeeded &&
    !status.failed &&
    !status.active &&
    pods.length === 0
  );
}

/** When a Kubernetes Job (one run) started, as its status says; null before its pods were made. */
export function runStartedAt(job: V1Job): Date | null {
  return toDate(job.status?.startTime);
}

/** Since when a Kubernetes Job's run has been on its way: its start, else its creation. */
export function runWaitingSince(job: V1Job): Date | null {
  return runStartedAt(job) ?? toDate(job.metadata?.creationTimestamp);
}

/**
 * The fire times a scheduled Job kept from running: under `concurrencyPolicy: Forbid` the CronJob
 * controller creates no Job while one is active, so every fire time strictly after the Job's own
 * and before it ended was skipped (DESIGN.md: one `skipped` row per such fire time), except one
 * that the CronJob controller still started late: it keeps `lastScheduleTime` at the active Job's
 * and, once that Job ends, starts the most recent fire time it missed unless
 * `startingDeadlineSeconds` has passed. `startedLate` says whether a Job exists for a fire time.
 * A manual Job (kubectl create job --from) does not block the schedule, and a suspended CronJob
 * fires nothing.
 */
export function skippedFireTimes(
  cronJob: V1CronJob,
  job: V1Job,
  finished: FinishedJob,
  startedLate: (fireTime: Date) => boolean,
  limit = 1000,
): Date[] {
  if (cronJob.spec?.concurrencyPolicy !== 'Forbid' || cronJob.spec.suspend) return [];
  const scheduledFor = toDate(job.metadata?.annotations?.[SCHEDULED_TIMESTAMP_ANNOTATION]);
  if (!scheduledFor) return [];
  const check = checkCron(cronJob.spec.schedule);
  if (!check.valid) return [];
  const timeZone = cronJob.spec.timeZone ?? 'UTC';
  const skipped: Date[] = [];
  for (
    let fire = nextFireTime(check.fields, timeZone, scheduledFor);
    fire.getTime() < finished.finishedAt.getTime() && skipped.length < limit;
    fire = nextFireTime(check.fields, timeZone, fire)
  ) {
    skipped.push(fire);
  }
  const last = skipped.at(-1);
  if (last && startedLate(last)) skipped.pop();
  return skipped;
}

/** The name the CronJob controller gives the Job of a fire time: NAME-<minutes since the epoch>. */
export function jobNameForFireTime(cronJobName: string, fireTime: Date): string {
  return `${cronJobName}-${Math.floor(fireTime.getTime() / 60_000)}`;
}

/** A time of a Kubernetes object (a Date from client-node, or the string of an annotation), or null. */
export function toDate(value: Date | string | undefined): Date | null {
  if (value === undefined) return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
