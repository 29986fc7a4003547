import type { RunTrigger } from './slots';

export const FINAL_STATUSES = ['success', 'failed', 'timeout', 'skipped'] as const;
export type FinalStatus = (typeof FINAL_STATUSES)[number];
/** `running` is internal: a row exists from the start of an attempt so a crash leaves a trace. */
export type ExecutionStatus = FinalStatus | 'running';

/** Statuses that an alert can be about (a `skipped` fire time never alerts). */
export const ALERT_EVENTS = ['success', 'failed', 'timeout'] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

/**
 * Why an attempt ended as it did, where its status and exit code do not say it: a code
 * (Kubernetes-style CamelCase such as `OOMKilled`, `Evicted`, `ImagePullBackOff`, or the signal
 * that killed the command, such as `SIGKILL`) and one line with the specifics (the memory limit,
 * the image). None for a plain success or a plain non-zero exit.
 */
export interface FailureReason {
  code: string;
  message: string;
}

/** Longest code and message kept: a reason is one line, not a log. */
export const REASON_CODE_MAX = 64;
export const REASON_MESSAGE_MAX = 1000;

export interface Execution {
  id: number;
  jobId: number;
  jobName: string;
  status: ExecutionStatus;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  attempt: number;
  reason: FailureReason | null;
  /** The slot the run is for (docs/slots.md); null for a run started by hand. */
  scheduledAt: Date | null;
  trigger: RunTrigger | null;
  /** Who started the run by hand (a Kubernetes username: run now, backfill); null when no one or unknown. */
  triggeredBy?: string | null;
}

/** What a finished attempt produced, before it has an id. */
export interface AttemptResult {
  status: FinalStatus;
  startedAt: Date;
  finishedAt: Date;
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Why it ended so, when there is more to say than the status and exit code. */
  reason?: FailureReason | null;
}

/** A job's attempt in progress, as the job object shows it (`running`). */
export interface RunningAttempt {
  executionId: number;
  startedAt: Date;
  attempt: number;
}
