import { checkCron } from './cron';

/**
 * The `spec.schedule` of the Kubernetes CronJob for a job's schedule, or null when the expression
 * is not valid. The CronJob controller parses it with robfig/cron's standard parser: nicknames are
 * kept (in the lower case robfig requires), anything else becomes the canonical fields, which are
 * written in the subset robfig reads with the same meaning (no 7 for Sunday, no ?, no wrapping
 * ranges, no TZ= prefix: the time zone goes to `spec.timeZone`).
 */
export function cronJobSchedule(expression: string): string | null {
  const check = checkCron(expression);
  if (!check.valid) return null;
  return check.nickname ?? check.fields;
}
