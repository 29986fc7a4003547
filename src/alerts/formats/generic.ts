import type { AlertSnapshot } from '../alertSnapshot';
import { hintLine } from './presentation';

/**
 * The raw JSON payload of spec section 6, field by field in the spec's order: `event`, `job`,
 * `execution` and `timestamp`. Extensions only add fields: `execution.reason` (OOMKilled,
 * SIGKILL, Timeout...), `execution.reasonMessage` and `execution.hint` (what to try), each null
 * when there is nothing to say.
 */
export function genericPayload(snapshot: AlertSnapshot) {
  const { event, job, execution, timestamp } = snapshot;
  return {
    event,
    job: { id: job.id, name: job.name, schedule: job.schedule, command: job.command },
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
    timestamp,
  };
}
