import type { Pool } from 'pg';
import type { AttemptResult, Execution, FailureReason } from '../domain/execution';
import type { ProcessGroup } from '../runner/processGroup';
import type { Job } from '../domain/job';
import type { RunSlot } from '../domain/slots';
import type { Logger } from '../logging/logger';
import { type Queryable, withTransaction } from '../store/database';
import { findJob, findJobs } from '../store/jobs';
import type {
  AfterCommit,
  ExecutionFinishedHook,
  ExecutionsRecordedStep,
  RecordedExecution,
} from '../store/transactionHooks';
import { notFound } from '../domain/errors';
import { recordWithOutputFallback } from './outputFallback';
import {
  type AttemptOutcome,
  countFinishedExecutions,
  type FinishedExecution,
  finishAttempts,
  insertFinishedExecutions,
  setExecutionReason,
  type StartingAttempt,
  startAttempts,
} from '../store/executions';
import { isTransientDatabaseError } from '../store/transient';
import { type ClaimSettlement, type ClusterRunClaim, settleClaims } from './clusterRunClaims';
import { podMayExplain, sameReason, storableReason } from '../domain/failureReasons';
import { claimClusterRuns, markRunSeen, saveRunReason } from '../store/clusterRuns';
import { reviseWaitingAlerts } from '../store/alertReasons';
import { eachAlone, GroupCommit } from './groupCommit';
import { closeAbandonedAttempt } from '../store/runningAttempts';
import { recordProcessGroups } from '../store/processGroups';
import type { AbandonedRunEnding } from './leftoverRuns';

/** Observers told after the commit (metrics caches, live dashboards). Never awaited by the runtime. */
export type ExecutionListener = (execution: Execution) => void;

/** One execution to record: the outcome of an attempt opened by `start`, or one already finished. */
type Recording =
  | { kind: 'outcome'; job: Job; finalAttempt: boolean; executionId: number; result: AttemptResult }
  | {
      kind: 'finished';
      job: Job;
      finalAttempt: boolean;
      result: AttemptResult & { attempt: number; reportKey?: string; slot?: RunSlot | null };
      claim?: ClusterRunClaim;
    };

/**
 * What a batch takes: a recording, or a pod's report, which names its job by id only: the jobs of a
 * batch's reports are read together, in one statement, before its transaction.
 */
type Submission =
  | Recording
  | {
      kind: 'report';
      jobId: number;
      finalAttempt: boolean;
      result: AttemptResult & { attempt: number; reportKey?: string; slot?: RunSlot | null };
      claim?: ClusterRunClaim;
    };

/**
 * The single path by which every execution is recorded, whichever runtime produced it: the row,
 * the durable counter and the hook's writes commit in one transaction. Executions that finish
 * while a recording transaction is under way are recorded together in the next one (group
 * commit): under load one transaction records many, and a lone execution is recorded at once.
 */
export class ExecutionRecorder {
  private readonly listeners: ExecutionListener[] = [];
  /**
   * One batch at a time. Two transactions of this process then never write the same job's row nor
   * claim the same cluster run, and under load a batch takes whatever finished while the one before
   * was written: with 16 reports in flight, one queue recorded 4,048 a second where two (a job's
   * executions always in the same one) recorded 2,698, each transaction carrying half as many for
   * the same statements, and the two contending for the same pages and hot rows
   * (docs/benchmarks/where-the-time-goes.md).
   */
  private readonly batches = new GroupCommit<Submission, Execution | null>((submissions) =>
    this.recordBatch(submissions),
  );
  /** Attempts that start while others' rows are being opened are opened together. */
  private readonly starts = new GroupCommit<StartingAttempt, number>((attempts) => this.openRows(attempts));
  private readonly processGroups = new GroupCommit<{ executionId: number; group: ProcessGroup }, void>(
    async (groups) => {
      await recordProcessGroups(this.pool, groups);
      return groups.map(() => ({ status: 'fulfilled', value: undefined }));
    },
  );

  constructor(
    private readonly pool: Pool,
    private readonly logger: Logger,
    private readonly onFinished: ExecutionFinishedHook = async () => undefined,
  ) {}

  subscribe(listener: ExecutionListener): void {
    this.listeners.push(listener);
  }

  /**
   * Opens the row of an attempt; it shows as running until `finish`. `owner`: the registered
   * process that runs it (migration 013), if any; `slot`: the slot its run is for, if any.
   */
  start(
    job: Job,
    attempt: number,
    startedAt: Date,
    owner: number | null = null,
    slot: RunSlot | null = null,
  ): Promise<number> {
    return this.starts.submit({ jobId: job.id, jobName: job.name, startedAt, attempt, owner, slot });
  }

  /** Notes that the controller saw a cluster run as job `jobId`'s (see `ClusterRunRecorder.registerRun`). */
  markRunSeen(runUid: string, jobId: number): Promise<void> {
    return markRunSeen(this.pool, runUid, jobId);
  }

  /**
   * Keeps what the controller saw of cluster run `runUid`'s pods (`seen`: a reason; null, nothing
   * wrong; undefined, no pod to look at: what was kept stays), under the run's lock, so that it
   * and the run's final report meet once whichever comes first: a report recorded later takes the
   * kept reason (`write`); an execution that closed the run already takes it now, and so do its
   * alerts still waiting for it. Once the run has ended (`runEnded`) they wait no longer, with
   * `endedBy` (the Job's DeadlineExceeded: the cluster stopped it) where the pods said nothing.
   * Answers the execution given a reason, if one was.
   */
  async noteRunReason(
    jobId: number,
    runUid: string,
    seen: FailureReason | null | undefined,
    runEnded: boolean,
    endedBy: FailureReason | null = null,
  ): Promise<Execution | null> {
    const observed = seen === undefined ? undefined : storableReason(seen);
    const execution = await withTransaction(this.pool, async (tx) => {
      const claim = (await claimClusterRuns(tx, [runUid])).find((row) => row.jobId === jobId);
      if (observed !== undefined && !sameReason(claim?.reason ?? null, observed)) {
        await saveRunReason(tx, { runUid, jobId }, observed);
      }
      const reason = (observed === undefined ? (claim?.reason ?? null) : observed) ?? storableReason(endedBy);
      const closingKey = claim?.closedBy ? claim.closingKey : null;
      if (!closingKey) return null;
      const given = reason ? await setExecutionReason(tx, jobId, closingKey, reason) : null;
      if (reason || runEnded) await reviseWaitingAlerts(tx, jobId, closingKey, reason);
      return given;
    });
    if (execution) this.notify(execution);
    return execution;
  }

  /**
   * Keeps where a running attempt's processes are, so a start after a crash can end them: those
   * recorded together in one statement (a fire time starts thousands of commands).
   */
  recordProcessGroup(executionId: number, group: ProcessGroup): Promise<void> {
    return this.processGroups.submit({ executionId, group });
  }

  /** Records the outcome of an attempt opened by `start`. Returns null if it was already closed. */
  finish(
    job: Job,
    executionId: number,
    result: AttemptResult,
    finalAttempt: boolean,
  ): Promise<Execution | null> {
    return this.record({ kind: 'outcome', job, finalAttempt, executionId, result });
  }

  /**
   * Records an execution that arrives already finished: a skipped fire time, or a pod's report.
   * With a `reportKey`, a report that arrives twice is stored and counted once (returns null).
   * An execution of a cluster run is recorded only if its `claim` on the run is admitted, in the
   * same transaction (null when it is not; a refusal rejects).
   */
  recordFinished(
    job: Job,
    result: AttemptResult & { attempt: number; reportKey?: string; slot?: RunSlot | null },
    finalAttempt: boolean,
    claim?: ClusterRunClaim,
  ): Promise<Execution | null> {
    return this.record({ kind: 'finished', job, finalAttempt, result, claim });
  }

  /**
   * Records an attempt a pod reported for job `jobId`, as `recordFinished` does; rejects with a
   * not-found error when there is no such job.
   */
  recordReport(
    jobId: number,
    result: AttemptResult & { attempt: number; reportKey?: string; slot?: RunSlot | null },
    finalAttempt: boolean,
    claim?: ClusterRunClaim,
  ): Promise<Execution | null> {
    return this.record({ kind: 'report', jobId, finalAttempt, result, claim });
  }

  /**
   * Closes attempts whose process is gone (it crashed or was killed), each with how it ended: each
   * is recorded as failed, counted, and alerted like any failed final attempt. One that is no
   * longer running (it finished meanwhile) is left as it is.
   */
  async closeAbandoned(now: Date, endings: Map<number, AbandonedRunEnding>): Promise<Execution[]> {
    if (endings.size === 0) return [];
    const closed = await this.transaction(async (tx, recorded) => {
      const executions: Execution[] = [];
      for (const [id, ending] of endings) {
        const execution = await closeAbandonedAttempt(tx, id, now, ending);
        if (execution) executions.push(execution);
      }
      const withJobs: RecordedExecution[] = [];
      for (const execution of executions) {
        const job = await findJob(tx, execution.jobId);
        if (job) withJobs.push({ job, execution, finalAttempt: true });
      }
      await countFinishedExecutions(
        tx,
        withJobs.map((each) => each.execution),
      );
      await recorded(withJobs);
      return executions;
    });
    for (const execution of closed) this.notify(execution);
    return closed;
  }

  /**
   * Opens the rows of attempts in one statement. Should the database refuse it (a job deleted as
   * its run starts no longer has the row its attempt refers to), each is opened alone, so that
   * only that one fails.
   */
  private async openRows(attempts: StartingAttempt[]): Promise<PromiseSettledResult<number>[]> {
    try {
      return (await startAttempts(this.pool, attempts)).map((value) => ({ status: 'fulfilled', value }));
    } catch (error) {
      if (attempts.length === 1 || isTransientDatabaseError(error)) throw error;
    }
    return eachAlone(attempts, async (attempt) => (await startAttempts(this.pool, [attempt]))[0]!);
  }

  private async record(submission: Submission): Promise<Execution | null> {
    const execution = await this.batches.submit(submission);
    if (execution) this.notify(execution);
    return execution;
  }

  /**
   * Records a batch: reads the jobs its reports name and what the hook needs about the batch's jobs
   * (at once, on two connections), then records what it can together.
   */
  private async recordBatch(submissions: Submission[]): Promise<PromiseSettledResult<Execution | null>[]> {
    const reported = submissions.flatMap((each) => (each.kind === 'report' ? [each.jobId] : []));
    const coming = submissions.map((each) => ({
      jobId: each.kind === 'report' ? each.jobId : each.job.id,
      status: each.result.status,
      finalAttempt: each.finalAttempt,
    }));
    const [jobs, hookStep] = await Promise.all([
      findJobs(this.pool, [...new Set(reported)]),
      this.onFinished.prepare?.(this.pool, coming),
    ]);
    const outcomes: PromiseSettledResult<Execution | null>[] = [];
    const recordings: { at: number; recording: Recording }[] = [];
    for (const [at, each] of submissions.entries()) {
      if (each.kind !== 'report') recordings.push({ at, recording: each });
      else {
        const job = jobs.get(each.jobId);
        if (job) recordings.push({ at, recording: { ...each, kind: 'finished', job } });
        else outcomes[at] = { status: 'rejected', reason: notFound(`job ${each.jobId} not found`) };
      }
    }
    const recorded = await this.recordTogether(
      recordings.map((each) => each.recording),
      hookStep,
    );
    recordings.forEach((each, k) => (outcomes[each.at] = recorded[k]!));
    return outcomes;
  }

  /**
   * Records recordings in one transaction. Should the database (or an admission) refuse it, each
   * is tried again alone, so that one bad recording fails alone and the others land; an
   * unreachable database fails them all, for their callers to retry.
   */
  private async recordTogether(
    recordings: Recording[],
    hookStep: ExecutionsRecordedStep | undefined,
  ): Promise<PromiseSettledResult<Execution | null>[]> {
    if (recordings.length === 0) return [];
    if (recordings.length > 1) {
      try {
        const executions = await this.transaction(
          (tx, recorded) => this.write(tx, recordings, recorded),
          hookStep,
        );
        return executions.map((value) => ({ status: 'fulfilled', value }));
      } catch (error) {
        if (isTransientDatabaseError(error)) throw error;
      }
    }
    return eachAlone(recordings, (recording) => this.recordAlone(recording, hookStep));
  }

  /** Records one recording in a transaction of its own; without its output if that is what was refused. */
  private recordAlone(
    recording: Recording,
    hookStep: ExecutionsRecordedStep | undefined,
  ): Promise<Execution | null> {
    const alone = async (each: Recording) => {
      const [execution] = await this.transaction(
        (tx, recorded) => this.write(tx, [each], recorded),
        hookStep,
      );
      return execution ?? null;
    };
    const context = { job: recording.job.name };
    return recording.kind === 'outcome'
      ? recordWithOutputFallback(recording.result, (result) => alone({ ...recording, result }), this.logger, {
          ...context,
          executionId: recording.executionId,
        })
      : recordWithOutputFallback(
          recording.result,
          (result) => alone({ ...recording, result }),
          this.logger,
          context,
        );
  }

  /**
   * Writes the recordings' rows, counted as they are written (null for each not admitted, or
   * written before), then runs the hook on what it wrote.
   */
  private async write(
    tx: Queryable,
    recordings: Recording[],
    recorded: (executions: RecordedExecution[]) => Promise<void>,
  ): Promise<(Execution | null)[]> {
    const answers: (Execution | null)[] = recordings.map(() => null);
    const awaitsReason: boolean[] = recordings.map(() => false);
    const outcomes: { at: number; outcome: AttemptOutcome }[] = [];
    const finished: { at: number; execution: FinishedExecution }[] = [];
    const settlements = await this.admissions(tx, recordings);
    for (const [at, recording] of recordings.entries()) {
      const settlement = settlements[at];
      if (recording.kind === 'outcome') {
        outcomes.push({ at, outcome: { executionId: recording.executionId, result: recording.result } });
      } else if (!settlement || settlement.admitted) {
        const { job } = recording;
        let { result } = recording;
        // What the controller saw of the run's pods says more than the pod could (OOMKilled).
        if (settlement?.closed && settlement.runReason) result = { ...result, reason: settlement.runReason };
        awaitsReason[at] =
          settlement?.closed === true &&
          recording.claim?.by === 'report' &&
          !settlement.runReason &&
          podMayExplain(result);
        // The cluster run it is an attempt of: a run started by hand names who started it.
        const runUid = recording.claim?.runUid;
        finished.push({ at, execution: { ...result, jobId: job.id, jobName: job.name, runUid } });
      }
    }
    // The finished runs first: their statement's trigger may wait for a judgement of their jobs,
    // which must not find this transaction holding the job list's version, as finishing running
    // attempts (below) bumps it and a judge bumps it too (store/slots.ts: no deadlock).
    const inserted = await insertFinishedExecutions(
      tx,
      finished.map((each) => each.execution),
    );
    finished.forEach((each, k) => (answers[each.at] = inserted[k]!));
    const written = await finishAttempts(
      tx,
      outcomes.map((each) => each.outcome),
    );
    outcomes.forEach((each, k) => (answers[each.at] = written[k]!));
    await recorded(
      recordings.flatMap((recording, at) => {
        const execution = answers[at];
        if (!execution) return [];
        const each: RecordedExecution = {
          job: recording.job,
          execution,
          finalAttempt: recording.finalAttempt,
        };
        return [awaitsReason[at] ? { ...each, awaitsClusterReason: true } : each];
      }),
    );
    return answers;
  }

  /** How each recording's claim on a cluster run was settled; null for those without one. */
  private async admissions(tx: Queryable, recordings: Recording[]): Promise<(ClaimSettlement | null)[]> {
    const claims = recordings.flatMap((recording) =>
      recording.kind === 'finished' && recording.claim ? [recording.claim] : [],
    );
    const settled = await settleClaims(tx, claims);
    let next = 0;
    return recordings.map((recording) =>
      recording.kind === 'finished' && recording.claim ? settled[next++]! : null,
    );
  }

  /**
   * One transaction of `work`, with `recorded` to run the hook on the executions it recorded
   * (counted by the statements that wrote them): its step prepared for them (`hookStep`), or the
   * hook itself. What the hook asked to do after the commit runs once `work` has committed.
   */
  private async transaction<T>(
    work: (tx: Queryable, recorded: (executions: RecordedExecution[]) => Promise<void>) => Promise<T>,
    hookStep: ExecutionsRecordedStep = this.onFinished,
  ): Promise<T> {
    const afterCommit: AfterCommit[] = [];
    const result = await withTransaction(this.pool, (tx) =>
      work(tx, async (executions) => {
        if (executions.length === 0) return;
        const then = await hookStep(tx, executions);
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
