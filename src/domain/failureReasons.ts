import { firstCodePoints } from './codePoints';
import { type FailureReason, REASON_CODE_MAX, REASON_MESSAGE_MAX } from './execution';
import { storableText } from './text';

/**
 * The reasons a run gets where it runs as a local process (the local runtime, and `crondeck run`
 * in a pod, which reports them). Kubernetes' own reasons (OOMKilled, Evicted...) come from the
 * controller: controller/runs/podDiagnosis.ts.
 */

/** The service stopped (or crashed) while the run was going: it was closed at the next start. */
export const SERVICE_STOPPED: FailureReason = {
  code: 'ServiceStopped',
  message: 'the service stopped during this run',
};

/** The run was stopped on purpose: the service shutting down, the job deleted, the pod stopped. */
export const RUN_STOPPED: FailureReason = {
  code: 'Stopped',
  message:
    'stopped before it ended: the service was shutting down, the job was deleted or its pod was stopped',
};

/**
 * The command was killed by `signal` (exit code 128 + its number), by no one Crondeck knows: a
 * person, the kernel's OOM killer...
 */
export function killedBySignal(signal: string, exitCode: number): FailureReason {
  return { code: signal, message: `the command was killed by ${signal} (exit code ${exitCode})` };
}

/**
 * The command ran past its timeout. `killed`: it ignored TERM and was killed with KILL after the
 * grace period.
 */
export function timedOut(timeoutSeconds: number, killed: { graceSeconds: number } | null): FailureReason {
  const how = killed
    ? `stopped with SIGTERM, then killed with SIGKILL ${killed.graceSeconds} s later`
    : 'stopped with SIGTERM';
  return { code: 'Timeout', message: `ran longer than its timeout of ${timeoutSeconds} s: ${how}` };
}

/** A reason as stored: storable text, each part bounded (a reason is one line, whatever sent it). */
export function storableReason(reason: FailureReason | null | undefined): FailureReason | null {
  if (!reason) return null;
  return {
    code: firstCodePoints(storableText(reason.code), REASON_CODE_MAX),
    message: firstCodePoints(storableText(reason.message).replace(/\s*\n\s*/g, ' '), REASON_MESSAGE_MAX),
  };
}

/**
 * Whether the state of the pod an attempt ran in may say more about its failure than the runner
 * could: the command was killed (an OOM kill looks like any SIGKILL from inside), stopped (the
 * kubelet evicting the pod sends TERM), or its container was lost. A plain exit code, a success or
 * a timeout the runner enforced say all there is.
 */
export function podMayExplain(result: { status: string; exitCode: number }): boolean {
  return result.status === 'failed' && (result.exitCode < 0 || result.exitCode > 128);
}

export function sameReason(a: FailureReason | null, b: FailureReason | null): boolean {
  return a === b || (a !== null && b !== null && a.code === b.code && a.message === b.message);
}

/** A job's latest failed or timed-out run, as a ScheduledJob's status shows it. */
export interface LastFailure {
  at: Date;
  reason: FailureReason;
}

/**
 * The failure as a status shows it: its reason, else what its status and exit code say (`Error`,
 * the kubelet's word for a container that exited non-zero, or `Timeout`).
 */
export function lastFailureOf(execution: {
  status: string;
  exitCode: number | null;
  startedAt: Date;
  finishedAt: Date | null;
  reason: FailureReason | null;
}): LastFailure {
  const at = execution.finishedAt ?? execution.startedAt;
  if (execution.reason) return { at, reason: execution.reason };
  if (execution.status === 'timeout')
    return { at, reason: { code: 'Timeout', message: 'the run timed out' } };
  const exit =
    execution.exitCode === null || execution.exitCode < 0
      ? 'the exit code is unknown'
      : `exit code ${execution.exitCode}`;
  return { at, reason: { code: 'Error', message: exit } };
}
