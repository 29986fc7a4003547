import { z } from 'zod';
import { scheduleSchema, timeZoneSchema } from './job';
import { strictObjectError } from './zodErrors';

const DAY_SECONDS = 86_400;
const MAX_MAINTENANCE_WINDOWS = 20;
const MAX_FAILURE_COUNT = 1000;

const count = (what: string) =>
  z
    .number({ error: `must be a number of ${what}` })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .max(MAX_FAILURE_COUNT, { error: `must be at most ${MAX_FAILURE_COUNT}` });

const seconds = (min: number, max: number) =>
  z
    .number({ error: 'must be a number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` });

/**
 * A window during which the job's alerts are muted: it opens at each fire time of `schedule` (read
 * in `timezone`, daylight saving handled as the scheduler does) and lasts `durationSeconds`.
 * Without a time zone the job's own applies.
 */
const maintenanceWindowSchema = z
  .strictObject(
    {
      schedule: scheduleSchema.describe('Cron expression whose fire times open the window.'),
      durationSeconds: seconds(60, 7 * DAY_SECONDS).describe('How long the window stays open, in seconds.'),
      timezone: timeZoneSchema
        .optional()
        .describe('IANA time zone the schedule is read in. Default: the job’s time zone.'),
    },
    { error: strictObjectError('must be an object { schedule, durationSeconds, timezone }') },
  )
  .describe('A window during which alerts are muted; runs are still recorded.');

export type MaintenanceWindow = z.output<typeof maintenanceWindowSchema>;

/**
 * When a job's alerts are sent (docs/alert-policy.md). Every key is optional; a policy with none is no
 * policy. Counts are of runs: a run is its final attempt, retries are not failures of their own.
 */
export const alertPolicySchema = z
  .strictObject(
    {
      afterConsecutiveFailures: count('failed runs')
        .optional()
        .describe('Send failed/timeout alerts only from the Nth failed run in a row on.'),
      recovery: z
        .boolean({ error: 'must be true or false' })
        .optional()
        .describe('Send "recovered" on the first success after an alerted failure.'),
      repeatEverySeconds: seconds(60, 30 * DAY_SECONDS)
        .optional()
        .describe(
          'While the job keeps failing, send its failure alert again at most once per this many seconds.',
        ),
      maintenance: z
        .array(maintenanceWindowSchema, {
          error: 'must be an array of { schedule, durationSeconds, timezone }',
        })
        .max(MAX_MAINTENANCE_WINDOWS, { error: `must have at most ${MAX_MAINTENANCE_WINDOWS} windows` })
        .optional()
        .describe('Windows that mute alerts; runs are still recorded and counted.'),
      maxDurationSeconds: seconds(1, 30 * DAY_SECONDS)
        .optional()
        .describe('Send "overrun" once per run still going after this many seconds.'),
      minDurationSeconds: seconds(1, DAY_SECONDS)
        .optional()
        .describe('Send "tooFast" for a success shorter than this many seconds.'),
      suspendAfterFailures: count('failed runs')
        .optional()
        .describe(
          'Suspend the job after this many failed runs in a row, until someone switches it on or runs it.',
        ),
    },
    {
      error: strictObjectError(
        'must be an object { afterConsecutiveFailures, recovery, repeatEverySeconds, maintenance, ' +
          'maxDurationSeconds, minDurationSeconds, suspendAfterFailures }',
      ),
    },
  )
  .refine(
    (policy) =>
      policy.minDurationSeconds === undefined ||
      policy.maxDurationSeconds === undefined ||
      policy.minDurationSeconds < policy.maxDurationSeconds,
    { path: ['minDurationSeconds'], error: 'must be less than maxDurationSeconds' },
  )
  .describe('When the job’s alerts are sent, and what else is watched (docs/alert-policy.md).');

export type AlertPolicy = z.output<typeof alertPolicySchema>;

/** A policy that says nothing is no policy: the job alerts exactly as without one. */
export function isEmptyPolicy(policy: AlertPolicy | null | undefined): boolean {
  return !policy || Object.values(policy).every((value) => value === undefined);
}

/** What a job's policy remembers between runs (migration 014), as of its last recorded run. */
export interface PolicyState {
  /** Failed runs in a row; a success ends the streak. */
  consecutiveFailures: number;
  /** The same streak, counted from zero again when a person resumed the suspended job. */
  failuresTowardSuspension: number;
  /** When the first failed run of the streak ended. */
  failingSince: Date | null;
  /** A failure alert of this streak was sent (not muted or suppressed). */
  alertedFailure: boolean;
  /** When the last failure alert of this streak was sent. */
  lastAlertAt: Date | null;
}

export const FRESH_POLICY_STATE: PolicyState = {
  consecutiveFailures: 0,
  failuresTowardSuspension: 0,
  failingSince: null,
  alertedFailure: false,
  lastAlertAt: null,
};
