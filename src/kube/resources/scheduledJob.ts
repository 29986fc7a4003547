import { z } from 'zod';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { emailAddressSchema, MAX_RECIPIENTS_PER_EMAIL, webhookUrlSchema } from '../../domain/alertConfig';
import { alertPolicySchema } from '../../domain/alertPolicy';
import { FINAL_STATUSES, REASON_CODE_MAX, REASON_MESSAGE_MAX } from '../../domain/execution';
import { jobInputFields, retrySchema, scheduleSchema, timeZoneSchema } from '../../domain/job';
import { catchUpSchema, DEFAULT_LATE_AFTER_SECONDS, lateAfterSecondsSchema } from '../../domain/slots';
import {
  observedStatusFields,
  envVarSchema,
  MAX_ENV_VARS,
  resourceRequirementsSchema,
} from './kubernetesFields';

/**
 * The shape of a schedule as a CRD pattern can check it: five fields or an @macro. The full check
 * (ranges, a date that never comes) is the domain's, run by the controller; the pattern only lets
 * `kubectl apply` refuse the obvious mistakes at once. RE2 syntax (the API server's).
 */
const SCHEDULE_SHAPE_PATTERN = /^\s*(@[a-zA-Z]+|[^\s=]+(\s+[^\s=]+){4})\s*$/;
/** An IANA zone name's shape (`UTC`, `Europe/Berlin`, `America/Argentina/Buenos_Aires`, `Etc/GMT+1`). */
const TIME_ZONE_SHAPE_PATTERN = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;
const MAX_SCHEDULE_LENGTH = 200;
const MAX_IMAGE_LENGTH = 1024;
const MAX_EMAIL_SHORTCUT_LENGTH = 4096;

const CONCURRENCY_POLICIES = ['Forbid', 'Allow', 'Replace'] as const;
const IMAGE_PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;
const DEFAULT_SUCCESSFUL_JOBS_HISTORY_LIMIT = 3;
const DEFAULT_FAILED_JOBS_HISTORY_LIMIT = 1;
const DEFAULT_RETRY_BASE_DELAY_SECONDS = 30;

/** The shape of a webhook URL as the CRD checks it; the domain schema parses it fully. */
export const HTTP_URL_SHAPE_PATTERN = /^[hH][tT][tT][pP][sS]?:\/\/\S+$/;

const webhookShortcut = (events: string) =>
  webhookUrlSchema
    .regex(HTTP_URL_SHAPE_PATTERN, { error: 'must be an http:// or https:// URL' })
    .optional()
    .describe(`Webhook URL that receives an alert on ${events}.`);

/** One address or a comma-separated list, checked with the domain's address rules. */
const emailShortcut = (events: string) =>
  z
    .string()
    .min(1)
    .max(MAX_EMAIL_SHORTCUT_LENGTH)
    .superRefine((value, ctx) => {
      const addresses = value
        .split(',')
        .map((address) => address.trim())
        .filter((address) => address.length > 0);
      if (addresses.length === 0) ctx.addIssue({ code: 'custom', message: 'must name at least one address' });
      if (addresses.length > MAX_RECIPIENTS_PER_EMAIL) {
        ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_RECIPIENTS_PER_EMAIL} addresses` });
      }
      for (const address of addresses) {
        if (!emailAddressSchema.safeParse(address).success) {
          ctx.addIssue({ code: 'custom', message: `"${address}" is not an e-mail address` });
        }
      }
    })
    .optional()
    .describe(`E-mail address, or a comma-separated list, that receives an alert on ${events}.`);

const { maxAttempts, baseDelay } = retrySchema.shape;

const scheduledJobRetrySchema = z
  .object({
    maxAttempts: maxAttempts
      .default(0)
      .describe('Extra attempts after a failed one (a timeout is not retried).'),
    baseDelay: baseDelay
      .default(DEFAULT_RETRY_BASE_DELAY_SECONDS)
      .describe('Seconds before the first retry; each further retry waits twice as long, at most 300.'),
  })
  .describe('Retries of a failed attempt within one run.');

const catchUpFields = catchUpSchema.shape;

/** The catch-up policy as the CRD states it (an object of the job's fields, its defaults filled in). */
export const scheduledJobCatchUpSchema = z
  .object({
    policy: catchUpFields.policy.describe('none (the default), latest, or all.'),
    maxRuns: catchUpFields.maxRuns
      .describe('With all: at most this many missed slots are run, the latest ones (1-100).')
      .meta({ format: 'int32' }),
    withinSeconds: catchUpFields.withinSeconds
      .describe('Only slots missed less than this many seconds ago are run (60-604800).')
      .meta({ format: 'int32' }),
  })
  .describe(
    'Which slots missed while nothing fired (an outage of the cluster or the controller) run afterwards, each as the run of its slot.',
  );

const historyLimit = (what: string, fallback: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(100)
    .default(fallback)
    .describe(`How many ${what} Jobs the cluster keeps.`)
    .meta({ format: 'int32' });

/** `spec` of a ScheduledJob: the job's fields (spec section 2), how its pods run, its alert shortcuts. */
export const scheduledJobSpecSchema = z
  .object({
    schedule: scheduleSchema
      .max(MAX_SCHEDULE_LENGTH)
      .regex(SCHEDULE_SHAPE_PATTERN, { error: 'must be five cron fields or an @macro such as @daily' })
      .describe(
        'Cron expression: five fields (minute hour day-of-month month day-of-week) or @hourly, @daily...',
      ),
    command: jobInputFields.command.describe('Shell command, run with sh -c.'),
    timeZone: timeZoneSchema
      .max(100)
      .regex(TIME_ZONE_SHAPE_PATTERN, { error: 'must be an IANA time zone name such as Europe/Berlin' })
      .optional()
      .describe('IANA time zone the schedule is read in. Default: the service default (UTC unless set).'),
    suspend: z.boolean().default(false).describe('Stop scheduling new runs; a run in progress continues.'),
    timeout: jobInputFields.timeout
      .unwrap()
      .default(0)
      .describe('Seconds an attempt may run before it is killed; 0 means no limit (at most 86400).')
      .meta({ format: 'int32' }),
    retry: scheduledJobRetrySchema.optional(),
    description: jobInputFields.description.unwrap().unwrap().optional().describe('Free text about the job.'),
    tags: jobInputFields.tags.describe('Free-form labels of the job.'),
    image: z
      .string()
      .min(1)
      .max(MAX_IMAGE_LENGTH)
      .regex(/^\S+$/, { error: 'must not contain spaces' })
      .optional()
      .describe('Container image to run the command in (it needs /bin/sh). Default: the Crondeck image.'),
    imagePullPolicy: z
      .enum(IMAGE_PULL_POLICIES)
      .optional()
      .describe('Pull policy of the image: Always, IfNotPresent or Never. Default: the cluster default.'),
    concurrencyPolicy: z
      .enum(CONCURRENCY_POLICIES)
      .default('Forbid')
      .describe('When a run is due while the previous one is active: Forbid (skip it), Allow, or Replace.'),
    startingDeadlineSeconds: z
      .number()
      .int()
      // The CronJob controller looks back only this far for a missed time: with 0 it never finds
      // one and never starts a run, and under 10 s it may miss times (Kubernetes' docs say so).
      .min(10, {
        error: 'must be at least 10 seconds (with less, the CronJob controller may never start a run)',
      })
      .max(86_400 * 366)
      .optional()
      .describe('A run that could not start within this many seconds of its time is skipped (at least 10).')
      .meta({ format: 'int64' }),
    successfulJobsHistoryLimit: historyLimit('successful', DEFAULT_SUCCESSFUL_JOBS_HISTORY_LIMIT),
    failedJobsHistoryLimit: historyLimit('failed', DEFAULT_FAILED_JOBS_HISTORY_LIMIT),
    env: z
      .array(envVarSchema)
      .max(MAX_ENV_VARS)
      .superRefine((vars, ctx) => {
        const seen = new Set<string>();
        for (const { name } of vars) {
          if (seen.has(name)) ctx.addIssue({ code: 'custom', message: `duplicate name ${name}` });
          seen.add(name);
        }
      })
      .optional()
      .describe('Environment variables of the command.')
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
    resources: resourceRequirementsSchema.optional(),
    lateAfterSeconds: lateAfterSecondsSchema
      .default(DEFAULT_LATE_AFTER_SECONDS)
      .describe('Grace of each slot: a run that starts later than this after its time is late (0-86400).')
      .meta({ format: 'int32' }),
    catchUp: scheduledJobCatchUpSchema.optional(),
    allowDuplicateSlots: z
      .boolean()
      .default(false)
      .describe('Let a second run of one slot run its command too (the slot is then duplicate).'),
    onFailure: webhookShortcut('failure (failed, timeout)'),
    onSuccess: webhookShortcut('success'),
    onComplete: webhookShortcut('every outcome (success, failed, timeout)'),
    onFailureEmail: emailShortcut('failure (failed, timeout)'),
    onSuccessEmail: emailShortcut('success'),
    onCompleteEmail: emailShortcut('every outcome (success, failed, timeout)'),
    onMissed: webhookShortcut('a missed slot (a fire time nothing ran for)'),
    onMissedEmail: emailShortcut('a missed slot (a fire time nothing ran for)'),
    alertPolicy: alertPolicySchema.optional(),
  })
  .describe('Desired state of the job.');

export const scheduledJobStatusSchema = z
  .object({
    jobId: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Id of the job in the Crondeck service (the id of the REST API).')
      .meta({ format: 'int64' }),
    nextRun: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Next planned run.')
      .meta({ format: 'date-time' }),
    lastRun: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Start of the last run.')
      .meta({ format: 'date-time' }),
    lastStatus: z.enum(FINAL_STATUSES).optional().describe('Outcome of the last run.'),
    lastFailureTime: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('When the last failed or timed-out run ended.')
      .meta({ format: 'date-time' }),
    lastFailureReason: z
      .string()
      .max(REASON_CODE_MAX)
      .optional()
      .describe(
        'Why the last failed run failed, in CamelCase: OOMKilled, Evicted, ImagePullBackOff, DeadlineExceeded, SIGKILL, Timeout..., or Error for a plain non-zero exit.',
      ),
    lastFailureMessage: z
      .string()
      .max(REASON_MESSAGE_MAX)
      .optional()
      .describe('The specifics of lastFailureReason (the memory limit, the image, the exit code).'),
    ...observedStatusFields(
      'Standard conditions: Ready; Suspended while the alert policy holds the job after failing runs.',
    ),
  })
  .describe('Observed state, written by the controller.');

/** The spec as the controller reads it: the API server has applied the defaults. */
export type ScheduledJobSpec = z.output<typeof scheduledJobSpecSchema>;
/** The spec as a user writes it. */
export type ScheduledJobSpecInput = z.input<typeof scheduledJobSpecSchema>;
export type ScheduledJobStatus = z.output<typeof scheduledJobStatusSchema>;
export type ScheduledJobEnvVar = NonNullable<ScheduledJobSpec['env']>[number];

export interface ScheduledJob {
  apiVersion: string;
  kind: 'ScheduledJob';
  metadata: V1ObjectMeta;
  spec: ScheduledJobSpec;
  status?: ScheduledJobStatus;
}
