import type { AttemptResult } from '../domain/execution';
import { RUN_STOPPED } from '../domain/failureReasons';
import type { Job } from '../domain/job';
import type { Logger } from '../logging/logger';
import { retryWhileUnavailable } from '../store/transient';
import { jobEnvironment } from './jobEnvironment';
import type { ProcessGroup } from './processGroup';
import { retryDelaySeconds, totalAttempts } from './retry';
import { type CommandResult, runCommand } from './runCommand';
import { notStartedResult, START_ERROR } from './startFailure';

/**
 * What the loop needs of a job: enough to run it, as a pod knows it too; and the slot the run is
 * for, if any, which its command sees (CRONDECK_SCHEDULED_TIME).
 */
export type RunnableJob = Pick<Job, 'id' | 'name' | 'command' | 'timeout' | 'retry'> & {
  scheduledAt?: Date | null;
};

/**
 * Where the attempts of one run are recorded: in-process by the execution recorder, or over HTTP
 * from a pod. An attempt is recorded as it starts (so a crash leaves a trace) and as it finishes.
 */
export interface AttemptRecorder {
  /** Opens the record of an attempt; resolves to its id. */
  startAttempt(attempt: number, startedAt: Date): Promise<number>;
  /**
   * Records an attempt's outcome. Resolves to false when another process had closed the attempt
   * already, taking its owner for gone: the run then ends, so that it is not recorded twice.
   */
  finishAttempt(executionId: number, result: AttemptResult, finalAttempt: boolean): Promise<boolean | void>;
  /** Where the attempt's processes are, as soon as they exist, so a start after a crash can end them. */
  recordProcessGroup?(executionId: number, group: ProcessGroup): Promise<void>;
}

/** Runs one attempt's command; the default spawns it, tests substitute their own. */
export type ExecuteAttempt = (
  job: RunnableJob,
  attempt: number,
  signal: AbortSignal,
  onSpawn?: (group: ProcessGroup | null) => void,
) => Promise<CommandResult>;

export interface AttemptLoopOptions {
  recorder: AttemptRecorder;
  logger: Logger;
  execute?: ExecuteAttempt;
  /** Waits between attempts; resolves early when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** How long recording keeps being retried while the database (or the service) is unreachable. */
  recordRetryBudgetMs?: number;
  /** Told when an attempt's command has been started (after its start was recorded). */
  onAttemptStarted?: (attempt: number) => void;
  /** The time an attempt starts at: the runtime's clock (the one its slots are judged by). */
  now?: () => Date;
}

/** How long a run keeps trying to record its result while the database is unreachable. */
const RECORD_RETRY_BUDGET_MS = 10 * 60_000;

export const STOPPED_NOTE = '[crondeck] stopped: the service is shutting down or the job was deleted\n';

/**
 * One run of a job: the first attempt and its retries with exponential backoff, each recorded as
 * it starts and as it finishes. A timeout is not retried, nor is a run stopped through `signal`
 * (shutdown, deletion), which is recorded as failed with a note saying why.
 */
export async function runAttempts(
  job: RunnableJob,
  signal: AbortSignal,
  options: AttemptLoopOptions,
): Promise<void> {
  const execute = options.execute ?? spawnAttempt;
  const sleep = options.sleep ?? abortableSleep;
  const whileUnavailable = <T>(work: () => Promise<T>) =>
    retryWhileUnavailable(work, {
      budgetMs: options.recordRetryBudgetMs ?? RECORD_RETRY_BUDGET_MS,
      onRetry: (error, delayMs) =>
        options.logger.warn('database unavailable; retrying', { delayMs, err: error }),
    });
  const attempts = totalAttempts(job.retry);
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) {
      await sleep(retryDelaySeconds(job.retry?.baseDelay ?? 0, attempt) * 1000, signal);
      if (signal.aborted) return;
    }
    const startedAt = options.now?.() ?? new Date();
    const executionId = await whileUnavailable(() => options.recorder.startAttempt(attempt, startedAt));
    const running = executeOrFail(() =>
      execute(job, attempt, signal, (group) => {
        if (!group || !options.recorder.recordProcessGroup) return;
        options.recorder
          .recordProcessGroup(executionId, group)
          .catch((error) => options.logger.warn('could not record a process group', { err: error }));
      }),
    );
    options.onAttemptStarted?.(attempt);
    const result = await running;
    if (result.reason?.code === START_ERROR) {
      options.logger.error('could not start a command', { job: job.name, attempt, reason: result.reason });
    }
    const final = result.status !== 'failed' || attempt === attempts - 1 || signal.aborted;
    const stderr = signal.aborted ? `${result.stderr}${STOPPED_NOTE}` : result.stderr;
    const reason = result.reason ?? (signal.aborted ? RUN_STOPPED : null);
    // The result exists only in memory until this commits: ride out a database restart.
    const recorded = await whileUnavailable(() =>
      options.recorder.finishAttempt(executionId, { ...result, stderr, reason }, final),
    );
    if (recorded === false) {
      options.logger.warn('another process had closed this attempt as interrupted; the run ends there', {
        job: job.name,
        attempt,
      });
      return;
    }
    if (final) return;
  }
}

/**
 * The attempt's result, or a failed one saying why it could not be run: an attempt whose row says
 * `running` must be closed whatever went wrong in starting it.
 */
async function executeOrFail(run: () => Promise<CommandResult>): Promise<CommandResult> {
  const startedAt = new Date();
  try {
    return await run();
  } catch (error) {
    return notStartedResult(error, startedAt);
  }
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function spawnAttempt(
  job: RunnableJob,
  attempt: number,
  signal: AbortSignal,
  onSpawn?: (group: ProcessGroup | null) => void,
): Promise<CommandResult> {
  return runCommand({
    command: job.command,
    timeoutSeconds: job.timeout,
    env: jobEnvironment(
      process.env,
      {
        jobId: job.id,
        jobName: job.name,
        attempt,
        scheduledAt: job.scheduledAt,
      },
      'service',
    ),
    signal,
    onSpawn,
  });
}
