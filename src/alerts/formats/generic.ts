import type { AlertSnapshot } from '../alertSnapshot';

/**
 * The raw JSON payload of spec section 6, field by field in the spec's order: `event`, `job`,
 * `execution` and `timestamp`, nothing more.
 */
export function genericPayload(snapshot: AlertSnapshot): AlertSnapshot {
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
    },
    timestamp,
  };
}
