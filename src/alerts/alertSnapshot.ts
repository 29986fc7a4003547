import type { DestinationEvent } from '../domain/alertEvents';
import type { Execution } from '../domain/execution';
import type { Job } from '../domain/job';
import { lastCodePoints } from '../domain/codePoints';

/** How much output an alert carries (spec section 8): the last 500 characters. */
export const OUTPUT_TAIL_CHARACTERS = 500;

/** The execution an alert is about, as the spec's generic payload has it. */
interface ExecutionSnapshot {
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
}

/** A run still going past the job's `maxDurationSeconds` (the `overrun` event). */
interface RunningSnapshot {
  startedAt: string;
  runningForMs: number;
  maxDurationSeconds: number;
  /** The attempt in progress, where the service knows it (the local runtime's runs). */
  executionId?: number;
  attempt?: number;
}

/**
 * What the alert policy adds to a payload (docs/alert-policy.md): only ever added, never a spec field
 * changed, and absent for a job without a policy.
 */
export interface PolicyFacts {
  /** A failure alert sent again while the job keeps failing (`repeatEverySeconds`). */
  reminder?: true;
  /** Failed runs in a row, this one included (for `recovered`: those it recovered from). */
  consecutiveFailures?: number;
  /** When the first failed run of the streak ended (`recovered`). */
  failingSince?: string;
  /** The policy's threshold a run finished under (`tooFast`). */
  minDurationSeconds?: number;
  /** Why the job was suspended (`suspended`). */
  suspendedReason?: string;
  run?: RunningSnapshot;
}

/** The slot a `missed` or `late` alert is about (docs/slots.md). */
export interface SlotSnapshot {
  scheduledAt: string;
  outcome: 'missed' | 'late';
  /** Why it was missed, or how late its run started, in words. */
  reason: string | null;
  /** When its run started, and how long after the slot (`late`). */
  startedAt?: string;
  delayMs?: number;
  executionIds?: number[];
}

/**
 * What an outbox row keeps of the job and the execution: the generic webhook payload of the spec,
 * plus the policy's facts. Every format is derived from it, so an alert can be sent after its job
 * is deleted or its execution pruned.
 */
export interface AlertSnapshot extends PolicyFacts {
  event: DestinationEvent;
  job: { id: number; name: string; schedule: string; command: string };
  /** The execution the alert is about; absent for an event that is not about one (an overrun). */
  execution?: ExecutionSnapshot;
  /** When the alert was raised: the same on every delivery attempt. */
  timestamp: string;
  /** The slot of a `missed` or `late` alert. */
  slot?: SlotSnapshot;
}

export function jobSnapshotOf(job: Job): AlertSnapshot['job'] {
  return { id: job.id, name: job.name, schedule: job.schedule, command: job.command };
}

export function snapshotOf(
  job: Job,
  execution: Execution,
  event: DestinationEvent,
  raisedAt: Date,
  facts: PolicyFacts = {},
): AlertSnapshot {
  const finishedAt = execution.finishedAt ?? execution.startedAt;
  return {
    event,
    job: jobSnapshotOf(job),
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
    ...facts,
  };
}

/** The snapshot of a `missed` or `late` alert: the job and its slot, no execution (a late run may still be going). */
export function slotAlertSnapshotOf(job: Job, slot: SlotSnapshot, raisedAt: Date): AlertSnapshot {
  return { event: slot.outcome, job: jobSnapshotOf(job), timestamp: raisedAt.toISOString(), slot };
}
