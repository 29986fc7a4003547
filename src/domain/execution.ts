import type { RunTrigger } from './slots';

export const FINAL_STATUSES = ['success', 'failed', 'timeout', 'skipped'] as const;
export type FinalStatus = (typeof FINAL_STATUSES)[number];
/** `running` is internal: a row exists from the start of an attempt so a crash leaves a trace. */
export type ExecutionStatus = FinalStatus | 'running';

/** Statuses that an alert can be about (a `skipped` fire time never alerts). */
export const ALERT_EVENTS = ['success', 'failed', 'timeout'] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

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
  /** The slot the run is for (docs/slots.md); null for a run started by hand. */
  scheduledAt: Date | null;
  trigger: RunTrigger | null;
}

/** What a finished attempt produced, before it has an id. */
export interface AttemptResult {
  status: FinalStatus;
  startedAt: Date;
  finishedAt: Date;
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A job's attempt in progress, as the job object shows it (`running`). */
export interface RunningAttempt {
  executionId: number;
  startedAt: Date;
  attempt: number;
}
