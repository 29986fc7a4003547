import type { Pool } from 'pg';
import type { AttemptResult, Execution } from '../domain/execution';
import type { ProcessGroup } from '../runner/processGroup';
import type { Job } from '../domain/job';
import type { Logger } from '../logging/logger';
import { type Queryable, withTransaction } from '../store/database';
import { findJob } from '../store/jobs';
import { recordWithOutputFallback } from './outputFallback';
import {
  closeInterruptedAttempts,
  countFinishedExecution,
  finishAttempt,
  insertFinishedExecution,
  startAttempt,
} from '../store/executions';
import { closeAbandonedAttempt, recordProcessGroup } from '../store/runningAttempts';
import { endLeftoverRuns } from './leftoverRuns';

/**
 * Called inside the transaction that records a finished execution, so whatever it writes (the
 * alert outbox) commits or rolls back together with the execution row and its counter. It may
 * return what to do once that transaction has committed (wake the alert worker, which would not
 * see the rows before): it runs then, and never after a rollback.
 */
export type ExecutionFinishedHook = (
  tx: Queryable,
  finished: { job: Job; execution: Execution; finalAttempt: boolean },
) => Promise<AfterCommit | void>;

type AfterCommit = () => void;

/** Counts a finished execution in the transaction that records it (and runs the hook). */
type CountInTransaction = (job: Job, execution: Execution, finalAttempt: boolean) => Promise<void>;

/** Observers told after the commit (metrics caches, live dashboards). Never awaited by the runtime. */
export type ExecutionListener = (execution: Execution) => void;

/**
 * The single path by which every execution is recorded, whichever runtime produced it: the row,
 * the durable counter and the hook's writes commit in one transaction.
 */
export class ExecutionRecorder {
  private readonly listeners: ExecutionListener[] = [];

  constructor(
    private readonly pool: Pool,
    private readonly logger: Logger,
    private readonly onFinished: ExecutionFinishedHook = async () => undefined,
  ) {}

  subscribe(listener: ExecutionListener): void {
    this.listeners.push(listener);
  }

  /** Opens the row of an attempt; it shows as running until `finish`. */
  start(job: Job, attempt: number, startedAt: Date): Promise<number> {
    return startAttempt(this.pool, { jobId: job.id, jobName: job.name, startedAt, attempt });
  }

  /** Keeps where a running attempt's processes are, so a start after a crash can end them. */
  recordProcessGroup(executionId: number, group: ProcessGroup): Promise<void> {
    return recordProcessGroup(this.pool, executionId, group);
  }

  /** Records the outcome of an attempt opened by `start`. Returns null if it was already closed. */
  async finish(
    job: Job,
    executionId: number,
    result: AttemptResult,
    finalAttempt: boolean,
  ): Promise<Execution | null> {
    const execution = await recordWithOutputFallback(
      result,
      (storable) =>
        this.transaction(async (tx, count) => {
          const finished = await finishAttempt(tx, executionId, storable);
          if (finished) await count(job, finished, finalAttempt);
          return finished;
        }),
      this.logger,
      { job: job.name, executionId },
    );
    if (execution) this.notify(execution);
    return execution;
  }

  /**
   * Records an execution that arrives already finished: a skipped fire time, or a pod's report.
   * With a `reportKey`, a report that arrives twice is stored and counted once (returns null).
   */
  async recordFinished(
    job: Job,
    result: AttemptResult & { attempt: number; reportKey?: string },
    finalAttempt: boolean,
    /**
     * Runs first, in the same transaction: false records nothing (returns null), a throw rolls back.
     * Cluster runs use it to decide between a pod's report and the controller's own record.
     */
    admit?: (tx: Queryable) => Promise<boolean>,
  ): Promise<Execution | null> {
    const execution = await recordWithOutputFallback(
      result,
      (storable) =>
        this.transaction(async (tx, count) => {
          if (admit && !(await admit(tx))) return null;
          const inserted = await insertFinishedExecution(tx, {
            ...storable,
            jobId: job.id,
            jobName: job.name,
          });
          if (inserted) await count(job, inserted, finalAttempt);
          return inserted;
        }),
      this.logger,
      { job: job.name },
    );
    if (execution) this.notify(execution);
    return execution;
  }

  /**
   * Closes attempts that a previous process left running (it crashed or was killed): each is
   * recorded as failed, counted, and alerted like any failed final attempt.
   */
  async closeInterrupted(now: Date): Promise<Execution[]> {
    // Their processes may still be running: end them first, so that the record says how.
    const endings = await endLeftoverRuns(this.pool, this.logger);
    const closed = await this.transaction(async (tx, count) => {
      const executions: Execution[] = [];
      for (const [id, ending] of endings) {
        const execution = await closeAbandonedAttempt(tx, id, now, ending);
        if (execution) executions.push(execution);
      }
      executions.push(
        ...(await closeInterruptedAttempts(tx, now, '\n[crondeck] the service stopped during this run\n')),
      );
      for (const execution of executions) {
        const job = await findJob(tx, execution.jobId);
        if (job) await count(job, execution, true);
      }
      return executions;
    });
    for (const execution of closed) this.notify(execution);
    return closed;
  }

  /**
   * One transaction of `work`, with `count` to count each execution it records; what the hook
   * asked to do after the commit runs once `work` has committed.
   */
  private async transaction<T>(work: (tx: Queryable, count: CountInTransaction) => Promise<T>): Promise<T> {
    const afterCommit: AfterCommit[] = [];
    const result = await withTransaction(this.pool, (tx) =>
      work(tx, async (job, execution, finalAttempt) => {
        await countFinishedExecution(tx, execution);
        const then = await this.onFinished(tx, { job, execution, finalAttempt });
        if (then) afterCommit.push(then);
      }),
    );
    for (const then of afterCommit) then();
    return result;
  }

  private notify(execution: Execution): void {
    for (const listener of this.listeners) {
      try {
        listener(execution);
      } catch (error) {
        this.logger.warn('execution listener failed', { err: error });
      }
    }
  }
}
