import { checkCron } from '../../domain/cron';

/**
 * The schedule written into the CronJob: the domain's normalized five fields (macros expanded,
 * whitespace collapsed), which the CronJob controller reads the same way. Throws on a schedule the
 * domain refuses: the controller validates the spec before it computes a CronJob.
 * The cron helper's `cronJobSchedule()` (src/domain/cronJobSchedule.ts, on its own branch) gives
 * the robfig-compatible form; once merged, this function should return that instead.
 */
export function cronJobScheduleOf(schedule: string): string {
  const check = checkCron(schedule);
  if (!check.valid) throw new Error(`spec.schedule: ${check.error}`);
  return check.fields;
}
