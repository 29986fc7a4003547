import type { Pool } from 'pg';
import type { Job } from '../../domain/job';
import type { SchedulerState } from '../../domain/schedulerState';
import {
  findJob,
  findJobsWithRowVersions,
  type JobsWritten,
  listJobRowVersions,
  listJobsWrittenSince,
  type StoredJob,
} from '../../store/jobs';
import { readVersionsMark } from '../../store/listVersions';
import {
  endRunRequest,
  holdRunClaim,
  listWaitingRunRequests,
  requestRun,
  returnRunRequest,
  type RunRequest,
  takeRunRequest,
} from '../../store/runRequests';
import type { ProcessIdentity } from '../../runner/processIdentity';
import { listRunningAttempts, type RunningAttemptOwnership } from '../../store/runningAttempts';
import {
  beat,
  forgetProcesses,
  listProcesses,
  type RegisteredProcess,
  registerProcess,
} from '../../store/serviceProcesses';
import { endPauseAt, readSchedulerState } from '../../store/scheduler';
import {
  type Backfill,
  backfilledSlots,
  finishBackfill,
  listUnfinishedBackfills,
  markBackfillStarted,
} from '../../store/slots';
import { type LedgerReads, ledgerReadsOf } from '../../scheduling/catchUpSlots';

/** What the local runtime reads and writes in the database besides executions. */
export interface LocalRuntimeStore {
  /** Every job's row version, by id: a job whose version is not the one last loaded has changed. */
  loadJobRowVersions(): Promise<Map<number, string>>;
  /**
   * The row versions of the jobs written since `horizon` (all of them when null), the number of
   * jobs, and the horizon of the next call (store/jobs.ts `listJobsWrittenSince`).
   */
  loadJobsWrittenSince(horizon: string | null): Promise<JobsWritten>;
  /** The jobs of `ids`, each with its row version. */
  loadJobs(ids: number[]): Promise<StoredJob[]>;
  findJob(id: number): Promise<Job | null>;
  loadSchedulerState(): Promise<SchedulerState>;
  /** Clears the stored pause that ends at `until`, unless it was replaced meanwhile. */
  endPauseAt(until: Date): Promise<void>;
  /** Changes whenever a job's definition or the scheduler switch changes, whoever changed it; not with a run recorded. */
  readChangeMark(): Promise<string>;
  /** The job's one claim on a run at a time (store/runRequests.ts). */
  runRequests: {
    /** Asks for a run now: the request's id, or null when the job has a run requested or going. */
    request(jobId: number, takenBy: number | null): Promise<number | null>;
    /** Holds the claim for a run waiting to retry: its id, or null when a request holds it already. */
    hold(jobId: number, process: number): Promise<number | null>;
    listWaiting(): Promise<RunRequest[]>;
    take(id: number, process: number): Promise<boolean>;
    giveBack(id: number): Promise<void>;
    end(id: number): Promise<void>;
  };
  /** Registers this process (migration 013); answers its id. */
  registerProcess(identity: ProcessIdentity): Promise<number>;
  beat(id: number, identity: ProcessIdentity): Promise<void>;
  /** Registered processes; `silent` when one has not beaten for `timeoutMs`. */
  listProcesses(timeoutMs: number): Promise<RegisteredProcess[]>;
  /** Unregisters processes, except any that still owns an attempt in progress. */
  forgetProcesses(ids: number[]): Promise<void>;
  /** Every attempt in progress, with its owner. */
  listRunningAttempts(): Promise<RunningAttemptOwnership[]>;
  /** What the slot ledger knows of some jobs (catch-up looks for the slots nothing ran for). */
  slots: LedgerReads;
  backfills: {
    listUnfinished(): Promise<Backfill[]>;
    markStarted(id: number, started: number): Promise<void>;
    finish(id: number, at: Date): Promise<void>;
    /** The slots (ms) of `slots` that a backfill run of the job was recorded for already. */
    alreadyRun(jobId: number, slots: Date[]): Promise<Set<number>>;
  };
}

export function poolRuntimeStore(pool: Pool): LocalRuntimeStore {
  return {
    loadJobRowVersions: () => listJobRowVersions(pool),
    loadJobsWrittenSince: (horizon) => listJobsWrittenSince(pool, horizon),
    loadJobs: (ids) => findJobsWithRowVersions(pool, ids),
    findJob: (id) => findJob(pool, id),
    loadSchedulerState: () => readSchedulerState(pool),
    endPauseAt: async (until) => void (await endPauseAt(pool, until)),
    readChangeMark: () => readVersionsMark(pool, ['job_definitions', 'scheduler']),
    runRequests: {
      request: (jobId, takenBy) => requestRun(pool, jobId, takenBy),
      hold: (jobId, process) => holdRunClaim(pool, jobId, process),
      listWaiting: () => listWaitingRunRequests(pool),
      take: (id, process) => takeRunRequest(pool, id, process),
      giveBack: (id) => returnRunRequest(pool, id),
      end: (id) => endRunRequest(pool, id),
    },
    registerProcess: (identity) => registerProcess(pool, identity),
    beat: (id, identity) => beat(pool, id, identity),
    listProcesses: (timeoutMs) => listProcesses(pool, timeoutMs),
    forgetProcesses: (ids) => forgetProcesses(pool, ids),
    listRunningAttempts: () => listRunningAttempts(pool),
    slots: ledgerReadsOf(pool),
    backfills: {
      listUnfinished: () => listUnfinishedBackfills(pool),
      markStarted: (id, started) => markBackfillStarted(pool, id, started),
      finish: (id, at) => finishBackfill(pool, id, at),
      alreadyRun: (jobId, slots) => backfilledSlots(pool, jobId, slots),
    },
  };
}
