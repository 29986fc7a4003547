import type { Execution } from '../domain/execution';
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

/** Called inside the transaction that records finished executions (one or many). */
export type ExecutionFinishedHook = (
  tx: Queryable,
  recorded: RecordedExecution[],
) => Promise<AfterCommit | void>;

/** A judged slot with the name of its job (for alerts and logs). */
export interface JudgedSlotOfJob extends JudgedSlot {
  jobName: string;
}

/** Called inside the transaction that writes judged slots (only those it wrote, each once). */
export type SlotsJudgedHook = (tx: Queryable, judged: JudgedSlotOfJob[]) => Promise<AfterCommit | void>;
