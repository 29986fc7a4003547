import type { AlertEvent, Execution } from '../domain/execution';
import type { Job } from '../domain/job';
import { lastCodePoints } from '../domain/codePoints';

/** How much output an alert carries (spec section 8): the last 500 characters. */
export const OUTPUT_TAIL_CHARACTERS = 500;

/**
 * What an outbox row keeps of the job and the execution: exactly the generic webhook payload of
 * the spec. Every format is derived from it, so an alert can be sent after its job is deleted or
 * its execution pruned.
 */
export interface AlertSnapshot {
  event: AlertEvent;
  job: { id: number; name: string; schedule: string; command: string };
  execution: {
    id: number;
    status: string;
    exitCode: number;
    durationMs: number;
    startedAt: string;
    finishedAt: string;
    stdoutTail: string;
    stderrTail: string;
    attempt: number;
    /**
     * Why it ended so (OOMKilled, SIGKILL, Timeout...) and the specifics; null when there is
     * nothing to say. Absent from snapshots queued before reasons existed.
     */
    reason?: string | null;
    reasonMessage?: string | null;
  };
  /** When the alert was raised: the same on every delivery attempt. */
  timestamp: string;
}

export function snapshotOf(job: Job, execution: Execution, event: AlertEvent, raisedAt: Date): AlertSnapshot {
  const finishedAt = execution.finishedAt ?? execution.startedAt;
  return {
    event,
    job: { id: job.id, name: job.name, schedule: job.schedule, command: job.command },
    execution: {
      id: execution.id,
      status: execution.status,
      exitCode: execution.exitCode ?? -1,
      durationMs: execution.durationMs ?? Math.max(0, finishedAt.getTime() - execution.startedAt.getTime()),
      startedAt: execution.startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      stdoutTail: lastCodePoints(execution.stdout, OUTPUT_TAIL_CHARACTERS),
      stderrTail: lastCodePoints(execution.stderr, OUTPUT_TAIL_CHARACTERS),
      attempt: execution.attempt,
      reason: execution.reason?.code ?? null,
      reasonMessage: execution.reason?.message ?? null,
    },
    timestamp: raisedAt.toISOString(),
  };
}
