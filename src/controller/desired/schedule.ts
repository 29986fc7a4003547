import { cronJobSchedule } from '../../domain/cronJobSchedule';

/**
 * The schedule written into the CronJob: the form the CronJob controller reads with the same
 * meaning as Crondeck (see cronJobSchedule). Throws on a schedule the domain refuses: the
 * controller validates the spec before it computes a CronJob.
 */
export function cronJobScheduleOf(schedule: string): string {
  const form = cronJobSchedule(schedule);
  if (form === null) throw new Error(`spec.schedule: ${schedule} is not a schedule Crondeck accepts`);
  return form;
}
