import { boundedName } from './resources/hashedName';

/**
 * The CronJob controller names each Job `<cronjob>-<minutes since the epoch>` (11 digits) and the
 * Job name becomes a 63-character label value, so the API server refuses CronJob names over 52.
 */
const MAX_CRONJOB_NAME_LENGTH = 52;

/** The CronJob of a ScheduledJob: its name, or a prefix and a hash when that is longer than 52. */
export function cronJobNameFor(scheduledJobName: string): string {
  return boundedName(scheduledJobName, MAX_CRONJOB_NAME_LENGTH);
}
