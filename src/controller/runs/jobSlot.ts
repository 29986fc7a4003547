import type { V1Job } from '@kubernetes/client-node';
import { RUN_TRIGGERS } from '../../domain/attemptReport';
import { checkCron } from '../../domain/cron';
import { effectiveTimeZone, type Job } from '../../domain/job';
import { type RunSlot, slotOfFireTime } from '../../domain/slots';
import { SCHEDULED_TIME_ANNOTATION, TRIGGER_ANNOTATION } from '../../kube/resources/slotRunJob';
import { SCHEDULED_TIMESTAMP_ANNOTATION, toDate } from './jobOutcome';

/**
 * The slot a Kubernetes Job ran for, as its annotations say: the controller's own (catch-up,
 * backfill), or the CronJob controller's scheduled timestamp, read as a slot of the job's schedule
 * (a fire time a DST fall-back repeats is the slot it repeats, as the runner's claim has it). A
 * run-now Job has none.
 */
export function slotOfKubeJob(
  kubeJob: V1Job,
  job: Pick<Job, 'schedule' | 'timezone'>,
  defaultTimeZone: string,
): RunSlot | null {
  const annotations = kubeJob.metadata?.annotations ?? {};
  const given = toDate(annotations[SCHEDULED_TIME_ANNOTATION]);
  if (given) {
    const trigger = RUN_TRIGGERS.find((each) => each === annotations[TRIGGER_ANNOTATION]) ?? 'catchUp';
    return { scheduledAt: given, trigger };
  }
  const fired = toDate(annotations[SCHEDULED_TIMESTAMP_ANNOTATION]);
  if (!fired) return null;
  const check = checkCron(job.schedule);
  const scheduledAt = check.valid
    ? slotOfFireTime(check.fields, effectiveTimeZone(job, defaultTimeZone), fired)
    : fired;
  return { scheduledAt, trigger: 'schedule' };
}
