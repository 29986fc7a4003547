import { checkCron, describeCron, nextFireTime } from './cron';

export type CronDescription =
  { valid: true; description: string; nextRun: Date } | { valid: false; error: string };

/**
 * The answer of `GET /api/cron/describe`. The dashboard asks while the user types, so whatever the
 * expression, this answers: an invalid one is `valid: false` with the reason, never an exception.
 */
export function describeSchedule(expression: string, timeZone: string, now: Date): CronDescription {
  try {
    const check = checkCron(expression);
    if (!check.valid) return { valid: false, error: check.error };
    return {
      valid: true,
      description: describeCron(check.fields),
      nextRun: nextFireTime(check.fields, timeZone, now),
    };
  } catch (error) {
    // checkCron is meant to refuse whatever the rest cannot handle; if one slips through, say so.
    const message = error instanceof Error ? error.message : String(error);
    return { valid: false, error: `cannot read this cron expression: ${message}` };
  }
}
