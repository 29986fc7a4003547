import { z } from 'zod';
import { MAX_RETRY_ATTEMPTS } from './job';
import type { RunTrigger } from './slots';
import { REASON_CODE_MAX, REASON_MESSAGE_MAX } from './execution';

/**
 * The window of times a report may name: none before this, and none more than an hour after the
 * service's clock (`reportTimeProblem`), the pod's clock being a node's. Within it, any duration
 * fits the database and JavaScript alike.
 */
const EARLIEST_REPORT_TIME = '2000-01-01T00:00:00Z';
const REPORT_CLOCK_AHEAD_MS = 60 * 60 * 1000;

const timestamp = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 timestamp' })
  .transform((value) => new Date(value))
  .refine((date) => date.getTime() >= Date.parse(EARLIEST_REPORT_TIME), {
    error: `must not be before ${EARLIEST_REPORT_TIME}`,
  });

/** Why a run that names a slot runs (domain/slots.ts), as a report spells it. */
export const RUN_TRIGGERS = ['schedule', 'catchUp', 'backfill'] as const satisfies readonly RunTrigger[];

/**
 * What a pod's `crondeck run` sends after each attempt (POST /api/jobs/:id/reports). The pod's
 * UID and the attempt number make the idempotency key: a report retried after a lost answer is
 * stored once. `runUid` is the UID of the Kubernetes Job the pod belongs to (one run): a final
 * report closes the run, and a report for a run the controller already recorded is refused.
 * `scheduledAt` and `trigger` name the slot the run is for (absent for a run by hand); both are
 * optional, and a runner resends a report without them to a service that does not know them.
 */
export const attemptReportSchema = z
  .strictObject(
    {
      podUid: z
        .string({ error: 'is required and must be a string' })
        .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/, { error: 'must be a pod UID' }),
      runUid: z
        .string({ error: 'must be a string' })
        .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/, { error: 'must be a Kubernetes Job UID' })
        .optional(),
      attempt: z
        .number({ error: 'is required and must be a number' })
        .int({ error: 'must be an integer' })
        .min(0, { error: 'must be at least 0' })
        .max(MAX_RETRY_ATTEMPTS, { error: `must be at most ${MAX_RETRY_ATTEMPTS}` }),
      final: z.boolean({ error: 'is required and must be true or false' }),
      status: z.enum(['success', 'failed', 'timeout'], { error: 'must be success, failed or timeout' }),
      exitCode: z
        .number({ error: 'is required and must be a number' })
        .int({ error: 'must be an integer' })
        .min(-1, { error: 'must be at least -1' })
        .max(255, { error: 'must be at most 255' }),
      startedAt: timestamp,
      finishedAt: timestamp,
      stdout: z.string({ error: 'must be a string' }).default(''),
      stderr: z.string({ error: 'must be a string' }).default(''),
      scheduledAt: timestamp.optional(),
      trigger: z.enum(RUN_TRIGGERS, { error: `must be one of ${RUN_TRIGGERS.join(', ')}` }).optional(),
      /** Why the attempt ended so, as the runner saw it (a timeout, a signal, a stop). */
      reason: z
        .strictObject(
          {
            code: z
              .string({ error: 'must be a string' })
              .regex(/^[A-Za-z][A-Za-z0-9]*$/, { error: 'must be a CamelCase word such as SIGKILL' })
              .max(REASON_CODE_MAX, { error: `must be at most ${REASON_CODE_MAX} characters` }),
            message: z
              .string({ error: 'must be a string' })
              .max(REASON_MESSAGE_MAX, { error: `must be at most ${REASON_MESSAGE_MAX} characters` }),
          },
          { error: 'must be an object { code, message }' },
        )
        .nullish(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown field ${(issue.keys ?? []).join(', ')}`
          : 'request body must be a JSON object',
    },
  )
  // Only once both timestamps parsed: zod runs an object's refinement even after a field failed.
  .refine(
    ({ startedAt, finishedAt }) =>
      !(startedAt instanceof Date && finishedAt instanceof Date) ||
      finishedAt.getTime() >= startedAt.getTime(),
    { path: ['finishedAt'], error: 'must not be before startedAt' },
  )
  .refine(({ scheduledAt, trigger }) => trigger === undefined || scheduledAt !== undefined, {
    path: ['trigger'],
    error: 'names why a run for a slot runs: it needs scheduledAt',
  });

export type AttemptReport = z.output<typeof attemptReportSchema>;

/**
 * What is wrong with a parsed report's times at `now` (the service's clock), naming the field, or
 * null: a time more than an hour ahead is refused rather than shown as the newest run for years.
 */
export function reportTimeProblem(
  report: Pick<AttemptReport, 'startedAt' | 'finishedAt'>,
  now: Date,
): string | null {
  const latest = now.getTime() + REPORT_CLOCK_AHEAD_MS;
  for (const field of ['startedAt', 'finishedAt'] as const) {
    if (report[field].getTime() > latest) {
      return `${field}: must not be more than an hour after the service's clock (${new Date(latest).toISOString()})`;
    }
  }
  return null;
}
/** The report as it travels (timestamps as strings). */
export type AttemptReportBody = z.input<typeof attemptReportSchema>;

/**
 * One report per pod and attempt: the key under which a duplicate is recognised, within the job the
 * report's token is for (a report sent with another job's token never matches it).
 */
export function reportKeyOf(report: Pick<AttemptReport, 'podUid' | 'attempt'>): string {
  return `pod:${report.podUid}:${report.attempt}`;
}
