import type { Clock } from '../../domain/clock';
import { conflict } from '../../domain/errors';
import { checkCron, nextFireTime } from '../../domain/cron';
import { effectiveTimeZone, type Job } from '../../domain/job';
import { isPausedAt, RUNNING, type SchedulerState } from '../../domain/schedulerState';
import type { Logger } from '../../logging/logger';
import { abortableSleep, type ExecuteAttempt, runAttempts } from '../../runner/attemptLoop';
import type { ExecutionRecorder } from '../../scheduling/executionRecorder';
import { inProcessAttemptRecorder } from '../../scheduling/inProcessAttempts';
import { type ProcessIdentity, thisProcessIdentity } from '../../runner/processIdentity';
import { retryWhileUnavailable } from '../../store/transient';
import type { Runtime } from '../runtime';
import { AbandonedRuns } from './abandonedRuns';
import type { Leadership } from './leadership';
import type { LocalRuntimeStore } from './localRuntimeStore';
import { ProcessPresence } from './processPresence';

export interface LocalRuntimeOptions {
  recorder: ExecutionRecorder;
  store: LocalRuntimeStore;
  leadership: Leadership;
  clock: Clock;
  logger: Logger;
  defaultTimeZone: string;
  /** Runs one attempt's command; tests substitute their own. */
  execute?: ExecuteAttempt;
  /** Waits between attempts; resolves early when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** How long `stop()` lets running jobs finish before killing them. */
  shutdownGraceMs?: number;
  /** Drive firing from real timers; tests turn this off and call `tick()` with their own clock. */
  autoTick?: boolean;
  /**
   * How often the leader looks for changes made through other processes (jobs, the scheduler
   * switch, run requests); null when no other process can share the database (embedded).
   */
  syncIntervalMs?: number | null;
  /** How often this process writes its heartbeat, and the leader looks for runs of gone processes. */
  heartbeatMs?: number;
  /** How long a process elsewhere may stay silent before its runs are closed as interrupted. */
  ownerTimeoutMs?: number;
  /** What this process registers as; tests stand another process in. */
  identity?: ProcessIdentity;
}

/** What tests and diagnostics may drive and read of the local runtime. */
export interface LocalRuntimeHooks {
  /**
   * Fires every job whose fire time has come by `now`, and ends a pause whose `until` has come.
   * Resolves once what it started has begun: each launched run's first attempt is running, each
   * skipped fire time and ended pause is written.
   */
  tick(now?: Date): Promise<void>;
  /** Resolves when every run started so far has been recorded. */
  idle(): Promise<void>;
  /** When each scheduled job fires next; empty while this process does not lead. */
  nextFireTimes(): Map<number, Date>;
  isLeading(): boolean;
  /** Takes in the changes other processes made (jobs, scheduler switch, run requests). */
  sync(): Promise<void>;
  /** Closes the runs of processes that are gone, as the leader does at every heartbeat. */
  sweep(): Promise<void>;
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

/** How long a skipped fire time keeps trying to be recorded while the database is unreachable. */
const RECORD_RETRY_BUDGET_MS = 10 * 60_000;

const DEFAULT_HEARTBEAT_MS = 5000;
/** Six heartbeats: a busy machine or a slow database delays one or two, not six. */
const DEFAULT_OWNER_TIMEOUT_MS = 30_000;

/**
 * The in-process scheduler of `crondeck serve` without a cluster: it fires each enabled job at its
 * cron times in the job's time zone and runs the command as a child process.
 *
 * Rules (DESIGN.md): a fire time that comes while the job's previous run is still active is
 * recorded as `skipped`; fire times missed while the service was down or paused are not replayed;
 * a manual run never moves the next scheduled one; every attempt is an execution row.
 *
 * Several processes may share one database: only the one that leads (see leadership.ts) fires and
 * runs jobs. The others tell it nothing directly: it notices their writes (jobs, the scheduler
 * switch) by the versions in the database, and takes their run requests from a table.
 */
export class LocalRuntime implements Runtime, LocalRuntimeHooks {
  private readonly entries = new Map<number, ScheduledEntry>();
  private readonly active = new Set<ActiveRun>();
  /** Writes started by ticks (skipped fire times, ended pauses), awaited by `tick` and `idle`. */
  private readonly housekeeping = new Set<Promise<unknown>>();
  private state: SchedulerState = RUNNING;
  private timer: NodeJS.Timeout | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private leading = false;
  private takingOver: Promise<void> = Promise.resolve();
  private firstTakeover: Promise<void> | undefined;
  /** A takeover failed (the database was away): the next sync does it again. */
  private takeoverPending = false;
  private syncing: Promise<void> | null = null;
  private changeMark: string | null = null;
  private readonly identity: ProcessIdentity;
  private readonly presence: ProcessPresence;
  private readonly abandoned: AbandonedRuns;
  /** This process's registration, once started: its attempts name it. */
  private processId: number | null = null;
  /** Closing abandoned runs, one look at a time (a takeover's and a heartbeat's would end a group twice). */
  private closing: Promise<unknown> = Promise.resolve();
  private sweeping: Promise<void> | null = null;

  constructor(private readonly options: LocalRuntimeOptions) {
    this.identity = options.identity ?? thisProcessIdentity();
    this.presence = new ProcessPresence({
      store: options.store,
      identity: this.identity,
      heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
      logger: options.logger,
      onBeat: () => void this.sweep(),
    });
    this.abandoned = new AbandonedRuns({
      store: options.store,
      recorder: options.recorder,
      clock: options.clock,
      logger: options.logger,
      ownerTimeoutMs: options.ownerTimeoutMs ?? DEFAULT_OWNER_TIMEOUT_MS,
    });
  }

  async start(): Promise<void> {
    // Registered before leading: the runs this process starts name it from the first.
    this.processId = await this.presence.start();
    await this.options.leadership.start((leading) => this.leadershipChanged(leading));
    // A process that leads from the start fails to start when it cannot load its jobs.
    await this.firstTakeover;
    this.scheduleSync();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    clearTimeout(this.syncTimer);
    await this.syncing;
    const runs = [...this.active];
    if (runs.length > 0) {
      this.options.logger.info('waiting for running jobs to finish', { count: runs.length });
      const grace = new Promise<'grace over'>((resolve) =>
        setTimeout(() => resolve('grace over'), this.options.shutdownGraceMs ?? 25_000).unref(),
      );
      const allDone = Promise.all(runs.map((run) => run.done));
      if ((await Promise.race([allDone, grace])) === 'grace over') {
        // Killed runs are recorded as failed (exit 143/137) by their own attempt loop.
        for (const run of this.active) run.abort.abort();
        await allDone;
      }
    }
    await Promise.allSettled([...this.housekeeping]);
    await this.closing;
    await this.options.leadership.stop();
    // Last: the runs this process started are recorded, or would be closed as its own once it is gone.
    await this.presence.stop();
  }

  async jobSaved(job: Job): Promise<void> {
    // A follower keeps no schedule: the leader notices the write by the jobs' version.
    if (!this.leading) return;
    this.schedule(job);
    this.arm();
  }

  /** A suspension is a change of whether the job fires, as an edit is. */
  suspensionChanged(job: Job): Promise<void> {
    return this.jobSaved(job);
  }

  async jobDeleted(jobId: number): Promise<void> {
    this.entries.delete(jobId);
    for (const run of this.active) if (run.jobId === jobId) run.abort.abort();
  }

  /** A second run of a job while one is going (retries included) is refused, as a fire time is skipped. */
  async runNow(job: Job): Promise<void> {
    if (this.isRunning(job.id) || (await this.options.store.hasRunningAttempt(job.id))) {
      throw conflict(`job "${job.name}" is already running; wait for its run to finish`);
    }
    if (this.leading) void this.launch(job);
    else await this.options.store.requestRun(job.id);
  }

  async schedulerChanged(state: SchedulerState): Promise<void> {
    if (!this.leading) return;
    this.state = state;
    this.arm();
  }

  isLeading(): boolean {
    return this.leading;
  }

  nextFireTimes(): Map<number, Date> {
    return new Map([...this.entries].map(([id, entry]) => [id, entry.nextFire]));
  }

  async idle(): Promise<void> {
    while (this.active.size > 0 || this.housekeeping.size > 0) {
      await Promise.allSettled([...[...this.active].map((run) => run.done), ...this.housekeeping]);
    }
  }

  /**
   * Each due job fires once, however many of its fire times have passed, and its next fire time is
   * computed from `now`.
   */
  async tick(now: Date = this.options.clock.now()): Promise<void> {
    if (this.stopping || !this.leading) return;
    // After a stall this process may have lost the lead without knowing it yet: ask first.
    if (!(await this.options.leadership.confirm())) return;
    const begun: Promise<unknown>[] = [];
    if (this.state.paused && this.state.until && this.state.until.getTime() <= now.getTime()) {
      begun.push(this.endPause(this.state.until));
    }
    const paused = isPausedAt(this.state, now);
    for (const entry of this.entries.values()) {
      if (entry.nextFire.getTime() > now.getTime()) continue;
      const fireTime = entry.nextFire;
      entry.nextFire = nextFireTime(entry.fields, entry.timeZone, now);
      if (paused) continue;
      if (this.isRunning(entry.job.id) || this.abandoned.isRunningElsewhere(entry.job.id))
        begun.push(this.recordSkipped(entry.job, fireTime));
      else begun.push(this.launch(entry.job));
    }
    await Promise.allSettled(begun);
  }

  sync(): Promise<void> {
    this.syncing ??= this.syncOnce().finally(() => (this.syncing = null));
    return this.syncing;
  }

  /**
   * The leader looks again at every heartbeat: an owner elsewhere is known gone only once its
   * heartbeat has been silent long enough, which may come after the takeover.
   */
  sweep(): Promise<void> {
    if (!this.leading || this.stopping) return Promise.resolve();
    this.sweeping ??= this.closeAbandoned(false)
      .then(
        () => undefined,
        (error) => this.options.logger.warn('could not look for runs of gone processes', { err: error }),
      )
      .finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private leadershipChanged(leading: boolean): void {
    this.leading = leading;
    this.changeMark = null;
    this.takeoverPending = false;
    if (leading) {
      const takeover = this.takeOver();
      this.firstTakeover ??= takeover;
      this.takingOver = takeover.catch((error) => {
        this.takeoverPending = true;
        this.options.logger.error('could not load jobs on taking over; will retry', { err: error });
      });
    } else {
      // Another process may be firing already; runs in progress here finish and are recorded.
      clearTimeout(this.timer);
      this.entries.clear();
      this.options.logger.warn('no longer leading: this process stops firing jobs');
    }
  }

  /**
   * Closes what gone processes left running (a previous leader that crashed), then loads the jobs
   * and the scheduler switch. The runs of live processes, a leader that lost the lead while
   * stalled included, are theirs to finish and record.
   */
  private async takeOver(): Promise<void> {
    await this.closeAbandoned(true);
    await this.reload();
  }

  private closeAbandoned(closeUnowned: boolean): Promise<unknown> {
    const me = { id: this.processId!, identity: this.identity };
    const closing = this.closing.then(() => this.abandoned.close(me, closeUnowned));
    this.closing = closing.catch(() => undefined);
    return closing;
  }

  private async syncOnce(): Promise<void> {
    if (!this.leading || this.stopping) return;
    try {
      await this.takingOver;
      if (this.takeoverPending) {
        await this.takeOver();
        this.takeoverPending = false;
      }
      const mark = await this.options.store.readChangeMark();
      if (mark !== this.changeMark) {
        await this.reload();
        this.changeMark = mark;
      }
      if (!(await this.options.leadership.confirm())) return;
      for (const jobId of await this.options.store.takeRunRequests()) {
        const job = await this.options.store.findJob(jobId);
        if (job && this.leading && !this.stopping) this.launch(job);
      }
    } catch (error) {
      this.options.logger.warn('could not look for changes from other processes', { err: error });
    }
  }

  private async reload(): Promise<void> {
    const [state, jobs] = await Promise.all([
      this.options.store.loadSchedulerState(),
      this.options.store.loadJobs(),
    ]);
    if (!this.leading) return;
    this.state = state;
    const seen = new Set<number>();
    for (const job of jobs) {
      seen.add(job.id);
      this.schedule(job);
    }
    for (const id of [...this.entries.keys()]) if (!seen.has(id)) this.entries.delete(id);
    // A job deleted through another process: its run stops here as it would for a local deletion.
    for (const run of this.active) if (!seen.has(run.jobId)) run.abort.abort();
    this.arm();
  }

  private scheduleSync(): void {
    const interval = this.options.syncIntervalMs;
    if (interval == null || this.stopping) return;
    this.syncTimer = setTimeout(() => {
      void this.sync().finally(() => this.scheduleSync());
    }, interval);
    this.syncTimer.unref();
  }

  private schedule(job: Job): void {
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
  }

  private isRunning(jobId: number): boolean {
    for (const run of this.active) if (run.jobId === jobId) return true;
    return false;
  }

  private arm(): void {
    if (this.options.autoTick === false || this.stopping || !this.leading) return;
    clearTimeout(this.timer);
    let earliest = Infinity;
    for (const entry of this.entries.values()) earliest = Math.min(earliest, entry.nextFire.getTime());
    if (this.state.paused && this.state.until) earliest = Math.min(earliest, this.state.until.getTime());
    const delay = Math.max(0, Math.min(earliest - this.options.clock.now().getTime(), MAX_TIMER_MS));
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.arm());
    }, delay);
    this.timer.unref();
  }

  /** The pause has run its course: fire again, and clear it where everyone reads it. */
  private endPause(until: Date): Promise<void> {
    this.state = RUNNING;
    return this.track(
      this.whileUnavailable(() => this.options.store.endPauseAt(until)).catch((error) =>
        this.options.logger.error('could not clear an ended pause', { err: error }),
      ),
    );
  }

  private recordSkipped(job: Job, fireTime: Date): Promise<void> {
    const now = this.options.clock.now();
    return this.track(
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
      ).then(
        () => undefined,
        (error) => this.options.logger.error('could not record a skipped run', { job: job.name, err: error }),
      ),
    );
  }

  /** Starts a run; resolves once its first attempt is running (or the run ended before that). */
  private launch(job: Job): Promise<void> {
    const abort = new AbortController();
    let begun!: () => void;
    const started = new Promise<void>((resolve) => (begun = resolve));
    const run: ActiveRun = { jobId: job.id, abort, done: Promise.resolve() };
    run.done = runAttempts(job, abort.signal, {
      recorder: inProcessAttemptRecorder(this.options.recorder, job, this.processId),
      logger: this.options.logger,
      execute: this.options.execute,
      sleep: this.options.sleep ?? abortableSleep,
      onAttemptStarted: begun,
    })
      .catch((error) => this.options.logger.error('run failed to record', { job: job.name, err: error }))
      .finally(() => {
        this.active.delete(run);
        begun();
      });
    this.active.add(run);
    return started;
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.housekeeping.add(work);
    void work.finally(() => this.housekeeping.delete(work)).catch(() => undefined);
    return work;
  }

  private whileUnavailable<T>(work: () => Promise<T>): Promise<T> {
    return retryWhileUnavailable(work, {
      budgetMs: RECORD_RETRY_BUDGET_MS,
      onRetry: (error, delayMs) =>
        this.options.logger.warn('database unavailable; retrying', { delayMs, err: error }),
    });
  }
}
