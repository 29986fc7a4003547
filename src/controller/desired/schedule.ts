import { checkCron } from '../../domain/cron';

/**
 * The schedule written into the CronJob: the domain's normalized five fields (macros expanded,
 * whitespace collapsed), which the CronJob controller reads the same way. Throws on a schedule the
 * domain refuses: the controller validates the spec before it computes a CronJob.
 */
export function cronJobScheduleOf(schedule: string): string {
  const check = checkCron(schedule);
  if (!check.valid) throw new Error(`spec.schedule: ${check.error}`);
  return check.fields;
}
