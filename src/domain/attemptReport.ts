import { z } from 'zod';
import { MAX_RETRY_ATTEMPTS } from './job';

const timestamp = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 timestamp' })
  .transform((value) => new Date(value));

/**
 * What a pod's `crondeck run` sends after each attempt (POST /api/jobs/:id/reports). The pod's
 * UID and the attempt number make the idempotency key: a report retried after a lost answer is
 * stored once. `runUid` is the UID of the Kubernetes Job the pod belongs to (one run): a final
 * report closes the run, and a report for a run the controller already recorded is refused.
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
  );

export type AttemptReport = z.output<typeof attemptReportSchema>;
/** The report as it travels (timestamps as strings). */
export type AttemptReportBody = z.input<typeof attemptReportSchema>;

/** One report per pod and attempt: the key under which a duplicate is recognised. */
export function reportKeyOf(report: Pick<AttemptReport, 'podUid' | 'attempt'>): string {
  return `pod:${report.podUid}:${report.attempt}`;
}
