import type { Execution, ExecutionStatus } from '../domain/execution';
import type { Job } from '../domain/job';
import type { Queryable } from './database';
import type { JudgedSlot } from './slots';

/**
 * The hooks scheduling/ calls inside its write transactions, which alerts/ implements (the
 * outbox). Declared here, beside the transaction they run in, so that neither side imports the
 * other: scheduling/ knows only that someone may write with it, alerts/ only what was written.
 * Each hook writes with the transaction it is given, so its rows commit or roll back together
 * with what was recorded; it may return what to do once that transaction has committed (wake a
 * worker that would not see the rows before), which runs then and never after a rollback.
 */
export type AfterCommit = () => void;

/** An execution as a recording transaction wrote it, with its job and whether it ended its run. */
export interface RecordedExecution {
  job: Job;
  execution: Execution;
  finalAttempt: boolean;
  /**
   * The final report of a cluster run that failed in a way its pod's state may explain (killed,
   * stopped): the controller, which sees the pod, may give the execution its reason shortly
   * (`ClusterRunRecorder.noteRunReason`), so its alerts wait a little for it.
   */
  awaitsClusterReason?: boolean;
}

/** Writes with the transaction that records finished executions (one or many). */
export type ExecutionsRecordedStep = (
  tx: Queryable,
  recorded: RecordedExecution[],
) => Promise<AfterCommit | void>;

/**
 * Called inside the transaction that records finished executions; reads what it needs there. Or in
 * two steps, when the recorder knows the jobs before its transaction: `prepare` reads what the
 * hook needs about them beside the recorder's own reads (at once, on another connection), and the
 * step it answers runs inside the transaction. A round trip fewer inside each recording
 * transaction, which holds its locks the while (about 8 % more recordings a second under load:
 * docs/benchmarks/where-the-time-goes.md).
 */
export interface ExecutionFinishedHook extends ExecutionsRecordedStep {
  prepare?: (db: Queryable, coming: ComingExecution[]) => Promise<ExecutionsRecordedStep>;
}

/** An execution a recording transaction is about to write, as far as it is known before it. */
interface ComingExecution {
  jobId: number;
  status: ExecutionStatus;
  finalAttempt: boolean;
}

/** A judged slot with the name of its job (for alerts and logs). */
export interface JudgedSlotOfJob extends JudgedSlot {
  jobName: string;
}

/** Called inside the transaction that writes judged slots (only those it wrote, each once). */
export type SlotsJudgedHook = (tx: Queryable, judged: JudgedSlotOfJob[]) => Promise<AfterCommit | void>;
