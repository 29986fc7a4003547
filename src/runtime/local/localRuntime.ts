import type { Clock } from '../../domain/clock';
import { checkCron, nextFireTime } from '../../domain/cron';
import { effectiveTimeZone, type Job } from '../../domain/job';
import type { Logger } from '../../logging/logger';
import { jobEnvironment } from '../../runner/jobEnvironment';
import type { ProcessGroup } from '../../runner/processGroup';
import { runAttempts } from '../../runner/attemptLoop';
import { type CommandResult, runCommand } from '../../runner/runCommand';
import type { ExecutionRecorder } from '../../scheduling/executionRecorder';
import { isPausedAt } from '../../scheduling/schedulerControl';
import type { SchedulerState } from '../../store/scheduler';
import { retryWhileUnavailable } from '../../store/transient';
import type { Runtime } from '../runtime';

/** Runs one attempt of a job; the default spawns the command, tests may substitute. */
export type AttemptRunner = (
  job: Job,
  attempt: number,
  signal: AbortSignal,
  onSpawn?: (group: ProcessGroup | null) => void,
) => Promise<CommandResult>;

export interface LocalRuntimeOptions {
  recorder: ExecutionRecorder;
  clock: Clock;
  logger: Logger;
  defaultTimeZone: string;
  /** Jobs and scheduler state at start-up. */
  loadJobs: () => Promise<Job[]>;
  loadSchedulerState: () => Promise<SchedulerState>;
  runAttempt?: AttemptRunner;
  /** Waits between attempts; resolves early when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** How long `stop()` lets running jobs finish before killing them. */
  shutdownGraceMs?: number;
  /** Drive firing from real timers; tests turn this off and call `tick()` with their own clock. */
  autoTick?: boolean;
}

interface ScheduledEntry {
  job: Job;
  fields: string;
  timeZone: string;
  nextFire: Date;
}

interface ActiveRun {
  jobId: number;
  abort: AbortController;
  done: Promise<void>;
}

/** Longest the timer sleeps, so a wall-clock jump is noticed within a minute. */
const MAX_TIMER_MS = 60_000;

/**
 * The in-process scheduler of `crondeck serve` without a cluster: it fires each enabled job at its
 * cron times in the job's time zone and runs the command as a child process.
 *
 * Rules (DESIGN.md): a fire time that comes while the job's previous run is still active is
 * recorded as `skipped`; fire times missed while the service was down or paused are not replayed;
 * a manual run never moves the next scheduled one; every attempt is an execution row.
 */
export class LocalRuntime implements Runtime {
  private readonly entries = new Map<number, ScheduledEntry>();
  private readonly active = new Set<ActiveRun>();
  private state: SchedulerState = { paused: false, until: null };
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly runAttempt: AttemptRunner;

  constructor(private readonly options: LocalRuntimeOptions) {
    this.runAttempt = options.runAttempt ?? spawnAttempt;
  }

  async start(): Promise<void> {
    const closed = await this.options.recorder.closeInterrupted(this.options.clock.now());
    if (closed.length > 0) {
      this.options.logger.warn('closed runs interrupted by the previous stop as failed', {
        count: closed.length,
      });
    }
    this.state = await this.options.loadSchedulerState();
    for (const job of await this.options.loadJobs()) this.jobSaved(job);
    this.arm();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    const runs = [...this.active];
    if (runs.length === 0) return;
    this.options.logger.info('waiting for running jobs to finish', { count: runs.length });
    const grace = new Promise<'grace over'>((resolve) =>
      setTimeout(() => resolve('grace over'), this.options.shutdownGraceMs ?? 25_000).unref(),
    );
    const allDone = Promise.all(runs.map((run) => run.done));
    if ((await Promise.race([allDone, grace])) === 'grace over') {
      // Killed runs are recorded as failed (exit 143/137) by their own run loop.
      for (const run of this.active) run.abort.abort();
      await allDone;
    }
  }

  jobSaved(job: Job): void {
    const check = checkCron(job.schedule);
    if (!job.enabled || !check.valid) {
      this.entries.delete(job.id);
      return;
    }
    const timeZone = effectiveTimeZone(job, this.options.defaultTimeZone);
    const previous = this.entries.get(job.id);
    // An edit that keeps the schedule keeps the pending fire time.
    const nextFire =
      previous && previous.fields === check.fields && previous.timeZone === timeZone
        ? previous.nextFire
        : nextFireTime(check.fields, timeZone, this.options.clock.now());
    this.entries.set(job.id, { job, fields: check.fields, timeZone, nextFire });
    this.arm();
  }

  jobDeleted(jobId: number): void {
    this.entries.delete(jobId);
    for (const run of this.active) if (run.jobId === jobId) run.abort.abort();
  }

  runNow(job: Job): void {
    this.launch(job);
  }

  schedulerChanged(state: SchedulerState): void {
    this.state = state;
  }

  isRunning(jobId: number): boolean {
    for (const run of this.active) if (run.jobId === jobId) return true;
    return false;
  }

  /** When each scheduled job fires next (for tests and diagnostics). */
  nextFireTimes(): Map<number, Date> {
    return new Map([...this.entries].map(([id, entry]) => [id, entry.nextFire]));
  }

  /** Resolves when every run started so far has been recorded. */
  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.all([...this.active].map((run) => run.done));
  }

  /**
   * Fires every job whose fire time has come by `now`. Each due job fires once, however many of
   * its fire times have passed, and its next fire time is computed from `now`.
   */
  tick(now: Date = this.options.clock.now()): void {
    if (this.stopping) return;
    const paused = isPausedAt(this.state, now);
    for (const entry of this.entries.values()) {
      if (entry.nextFire.getTime() > now.getTime()) continue;
      const fireTime = entry.nextFire;
      entry.nextFire = nextFireTime(entry.fields, entry.timeZone, now);
      if (paused) continue;
      if (this.isRunning(entry.job.id)) this.recordSkipped(entry.job, fireTime);
      else this.launch(entry.job);
    }
  }

  private arm(): void {
    if (this.options.autoTick === false || this.stopping) return;
    clearTimeout(this.timer);
    let earliest = Infinity;
    for (const entry of this.entries.values()) earliest = Math.min(earliest, entry.nextFire.getTime());
    const delay = Math.max(0, Math.min(earliest - this.options.clock.now().getTime(), MAX_TIMER_MS));
    this.timer = setTimeout(() => {
      this.tick();
      this.arm();
    }, delay);
    this.timer.unref();
  }

  private whileUnavailable<T>(work: () => Promise<T>): Promise<T> {
    return retryWhileUnavailable(work, {
      budgetMs: RECORD_RETRY_BUDGET_MS,
      onRetry: (error, delayMs) =>
        this.options.logger.warn('database unavailable; retrying', { delayMs, err: error }),
    });
  }

  private recordSkipped(job: Job, fireTime: Date): void {
    const now = this.options.clock.now();
    this.whileUnavailable(() =>
      this.options.recorder.recordFinished(
        job,
        {
          status: 'skipped',
          startedAt: fireTime,
          finishedAt: now,
          exitCode: -1,
          stdout: '',
          stderr: 'skipped: the previous run of this job was still in progress\n',
          attempt: 0,
        },
        true,
      ),
    ).catch((error) =>
      this.options.logger.error('could not record a skipped run', { job: job.name, err: error }),
    );
  }

  private launch(job: Job): void {
    const abort = new AbortController();
    const run: ActiveRun = { jobId: job.id, abort, done: Promise.resolve() };
    run.done = this.execute(job, abort.signal)
      .catch((error) => this.options.logger.error('run failed to record', { job: job.name, err: error }))
      .finally(() => this.active.delete(run));
    this.active.add(run);
  }

  /** One run: the first attempt and its retries, each recorded in the database as it goes. */
  private async execute(job: Job, signal: AbortSignal): Promise<void> {
    const { recorder, logger } = this.options;
    await runAttempts<number>({
      retry: job.retry,
      signal,
      sleep: this.options.sleep,
      abortNote: '[crondeck] stopped: the service is shutting down or the job was deleted\n',
      execute: (attempt, runSignal, onSpawn) => this.runAttempt(job, attempt, runSignal, onSpawn),
      recorder: {
        started: (attempt, startedAt) => this.whileUnavailable(() => recorder.start(job, attempt, startedAt)),
        processGroup: (executionId, group) =>
          void recorder
            .recordProcessGroup(executionId, group)
            .catch((error) => logger.warn('could not record a process group', { err: error })),
        // The result exists only in memory until this commits: ride out a database restart.
        finished: (executionId, _attempt, result, final) =>
          this.whileUnavailable(() => recorder.finish(job, executionId, result, final)).then(() => undefined),
      },
    });
  }
}

/** How long a run keeps trying to record its result while the database is unreachable. */
const RECORD_RETRY_BUDGET_MS = 10 * 60_000;

function spawnAttempt(
  job: Job,
  attempt: number,
  signal: AbortSignal,
  onSpawn?: (group: ProcessGroup | null) => void,
): Promise<CommandResult> {
  return runCommand({
    command: job.command,
    timeoutSeconds: job.timeout,
    env: jobEnvironment(process.env, { jobId: job.id, jobName: job.name, attempt }),
    signal,
    onSpawn,
  });
}
