import type { AlertSnapshot } from '../alertSnapshot';
import { hintLine } from './presentation';

type GenericPayload = Omit<AlertSnapshot, 'execution'> & {
  execution?: NonNullable<AlertSnapshot['execution']> & { hint: string | null };
};

/**
 * The raw JSON payload of spec section 6, field by field in the spec's order: `event`, `job`,
 * `execution` and `timestamp`. Extensions only add fields: `execution.reason` (OOMKilled,
 * SIGKILL, Timeout...), `execution.reasonMessage` and `execution.hint` (what to try), each null
 * when there is nothing to say. The alert policy's facts (docs/alert-policy.md) follow, each only
 * when it has something to say, so an alert without a policy is exactly the spec's payload. An
 * event that is not about a finished execution (an overrun) has no `execution`.
 */
export function genericPayload(snapshot: AlertSnapshot): GenericPayload {
  const { event, job, execution, timestamp } = snapshot;
  const payload: GenericPayload = {
    event,
    job: { id: job.id, name: job.name, schedule: job.schedule, command: job.command },
    ...(execution
      ? {
          execution: {
            id: execution.id,
            status: execution.status,
            exitCode: execution.exitCode,
            durationMs: execution.durationMs,
            startedAt: execution.startedAt,
            finishedAt: execution.finishedAt,
            stdoutTail: execution.stdoutTail,
            stderrTail: execution.stderrTail,
            attempt: execution.attempt,
            reason: execution.reason ?? null,
            reasonMessage: execution.reasonMessage ?? null,
            hint: hintLine(snapshot),
          },
        }
      : {}),
    timestamp,
  };
  const { reminder, consecutiveFailures, failingSince, minDurationSeconds, suspendedReason, run } = snapshot;
  if (reminder) payload.reminder = reminder;
  if (consecutiveFailures !== undefined) payload.consecutiveFailures = consecutiveFailures;
  if (failingSince !== undefined) payload.failingSince = failingSince;
  if (minDurationSeconds !== undefined) payload.minDurationSeconds = minDurationSeconds;
  if (suspendedReason !== undefined) payload.suspendedReason = suspendedReason;
  if (run) payload.run = { ...run };
  // The slot ledger's events say which slot (docs/slots.md).
  if (snapshot.slot) payload.slot = { ...snapshot.slot };
  return payload;
}
