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
