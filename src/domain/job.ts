import { z } from 'zod';
import { checkCron } from './cron';
import { catchUpSchema, DEFAULT_LATE_AFTER_SECONDS, lateAfterSecondsSchema } from './slots';
import { textSchema } from './text';
import { isValidTimeZone } from './timezone';
import { strictObjectError } from './zodErrors';

export const JOB_NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;
export const MAX_TIMEOUT_SECONDS = 86_400;
export const MAX_RETRY_ATTEMPTS = 10;
const MAX_BASE_DELAY_SECONDS = 3_600;
/** A Kubernetes namespace name: a DNS-1123 label (at most 63 characters). */
export const namespaceSchema = z
  .string({ error: 'must be a string' })
  .max(63, { error: 'must be at most 63 characters' })
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, {
    error: 'must be a Kubernetes namespace name (lower-case letters, digits and "-", a DNS-1123 label)',
  });
/**
 * The longest command the kernel lets run, in bytes: exec takes one argument (or one `NAME=value`
 * of the environment) of at most 128 KiB with its NUL (MAX_ARG_STRLEN). Locally the command is the
 * argument of `sh -c`; in a pod, `crondeck run` gets it as CRONDECK_COMMAND=… (17 bytes more). A
 * longer one (65,536 characters of three bytes each pass the character limit) could never start.
 */
export const MAX_COMMAND_BYTES = 131_072 - 1 - 'CRONDECK_COMMAND='.length;

const jobNameSchema = textSchema('is required and must be a string')
  .min(1, { error: 'must not be empty' })
  .max(200, { error: 'must be at most 200 characters' })
  .regex(JOB_NAME_PATTERN, {
    error: 'must start with a letter or digit and contain only letters, digits, ".", "_" and "-"',
  });

export const scheduleSchema = textSchema('is required and must be a string').superRefine((value, ctx) => {
  const check = checkCron(value);
  if (!check.valid) ctx.addIssue({ code: 'custom', message: check.error });
});

export const timeZoneSchema = textSchema().refine(isValidTimeZone, {
  error: 'must be an IANA time zone name such as Europe/Berlin or UTC',
});

export const retrySchema = z.strictObject(
  {
    maxAttempts: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be an integer' })
      .min(0, { error: 'must be at least 0' })
      .max(MAX_RETRY_ATTEMPTS, { error: `must be at most ${MAX_RETRY_ATTEMPTS}` }),
    baseDelay: z
      .number({ error: 'must be a number of seconds' })
      .min(0, { error: 'must be at least 0' })
      .max(MAX_BASE_DELAY_SECONDS, { error: `must be at most ${MAX_BASE_DELAY_SECONDS}` }),
  },
  { error: strictObjectError('must be an object { maxAttempts, baseDelay }') },
);

/** The fields a client sends to create or replace a job (spec section 2). Units are seconds. */
export const jobInputFields = {
  name: jobNameSchema,
  schedule: scheduleSchema,
  command: textSchema('is required and must be a string')
    .min(1, { error: 'must not be empty' })
    .max(65_536, { error: 'must be at most 65536 characters' })
    .refine((command) => Buffer.byteLength(command, 'utf8') <= MAX_COMMAND_BYTES, {
      error: `must be at most ${MAX_COMMAND_BYTES} bytes in UTF-8`,
    }),
  timeout: z
    .number({ error: 'must be a number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(0, { error: 'must be at least 0 (0 means no timeout)' })
    .max(MAX_TIMEOUT_SECONDS, { error: `must be at most ${MAX_TIMEOUT_SECONDS}` })
    .optional(),
  retry: retrySchema.nullish(),
  description: textSchema().max(4_000, { error: 'must be at most 4000 characters' }).nullish(),
  tags: z
    .array(textSchema().min(1, { error: 'must not be empty' }).max(100), {
      error: 'must be an array of strings',
    })
    .max(50, { error: 'must have at most 50 entries' })
    .optional(),
  timezone: timeZoneSchema.nullish(),
  enabled: z.boolean({ error: 'must be true or false' }).optional(),
  // The slot ledger (docs/slots.md): additive and optional, their defaults change nothing.
  lateAfterSeconds: lateAfterSecondsSchema.optional(),
  catchUp: catchUpSchema.nullish(),
  allowDuplicateSlots: z.boolean({ error: 'must be true or false' }).optional(),
  // Kubernetes mode: the namespace of the job's ScheduledJob (an extension; absent: the service's).
  namespace: namespaceSchema.nullish(),
};

/**
 * Fields the API returns on a job. A client may send a job back as it read it (GET, edit, PUT):
 * these keys are accepted and ignored; any other unknown key is rejected so typos do not pass.
 */
const READ_ONLY_JOB_FIELDS = [
  'id',
  'createdAt',
  'updatedAt',
  'nextRun',
  'lastRun',
  'lastStatus',
  'running',
  'scheduleDescription',
  'suspendedReason',
  'suspendedAt',
  'lastSlot',
  'changedBy',
];

const looseJobInput = z
  .looseObject(jobInputFields, { error: 'request body must be a JSON object' })
  .superRefine((value, ctx) => {
    for (const key of Object.keys(value)) {
      // Own fields only: `in` would take inherited names (`constructor`, `toString`) for job fields.
      if (!Object.hasOwn(jobInputFields, key) && !READ_ONLY_JOB_FIELDS.includes(key)) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'is not a job field' });
      }
    }
  });

export const jobInputSchema = z
  .preprocess((input, ctx) => {
    // JSON.parse makes `"__proto__"` an own key, which zod leaves out of the object it parses (so
    // the check above never sees it): refused here, before the fields are read, and so alone.
    if (typeof input === 'object' && input !== null && Object.hasOwn(input, '__proto__')) {
      ctx.addIssue({ code: 'custom', path: ['__proto__'], message: 'is not a job field', input });
    }
    return input;
  }, looseJobInput)
  .transform(
    ({
      name,
      schedule,
      command,
      timeout,
      retry,
      description,
      tags,
      timezone,
      enabled,
      namespace,
      ...slots
    }) => ({
      name,
      schedule: schedule.trim(),
      command,
      timeout: timeout ?? 0,
      retry: retry ?? null,
      description: description ?? null,
      tags: tags ?? [],
      timezone: timezone ?? null,
      enabled: enabled ?? true,
      lateAfterSeconds: slots.lateAfterSeconds ?? DEFAULT_LATE_AFTER_SECONDS,
      // `none` is kept as no policy at all: the job object shows the defaults of none either way.
      catchUp: slots.catchUp && slots.catchUp.policy !== 'none' ? slots.catchUp : null,
      allowDuplicateSlots: slots.allowDuplicateSlots ?? false,
      // Present only when named, so that jobs of every other source read as before.
      // (Typed as a job's: null where a job has none, outside Kubernetes mode.)
      ...(namespace == null ? {} : { namespace: namespace as string | null }),
    }),
  );

export type JobInput = z.output<typeof jobInputSchema>;

/**
 * A job as the service keeps it. `enabled` says whether it fires on schedule: false while its
 * alert policy holds it suspended (`suspendedReason`), whatever the person who switched it on said.
 */
export interface Job extends JobInput {
  id: number;
  createdAt: Date;
  updatedAt: Date;
  lastRun: Date | null;
  lastStatus: string | null;
  /** Why the alert policy suspended the job after failing runs; null when it is not suspended. */
  suspendedReason: string | null;
  suspendedAt: Date | null;
  /**
   * Kubernetes mode: the namespace of the job's ScheduledJob; null in local mode. (Inherited from
   * the input, where it says where to create the job; a stored job always carries it.)
   */
  namespace?: string | null;
  /** Who made the job's last change through the API (a Kubernetes username); null when unknown. */
  changedBy?: string | null;
  /**
   * Present only for a plain CronJob that a CronJobWatch selects (issue 40): the CronJob, which
   * someone else owns (the job's spec is read-only here), and the CronJobWatch that selects it
   * (null once none does: its history stays, it is watched no more).
   */
  cronJob?: WatchedCronJob;
}

interface WatchedCronJob {
  namespace: string;
  name: string;
  watchedBy: string | null;
  /** Its CronJobWatch's `allowBackfill`: whether Crondeck may start Jobs of it for past slots. */
  allowBackfill: boolean;
}

/**
 * Whether the people who manage the job want it on: what a cluster's `spec.suspend` says. A
 * suspension only ever holds a job that was on, so a suspended job is one they want on.
 */
export function switchedOn(job: Pick<Job, 'enabled' | 'suspendedReason'>): boolean {
  return job.enabled || job.suspendedReason !== null;
}

/** The time zone a job's schedule is read in: its own, else the service default, else UTC. */
export function effectiveTimeZone(job: Pick<Job, 'timezone'>, defaultTimeZone: string): string {
  return job.timezone ?? defaultTimeZone;
}
