import type { Clock } from '../../domain/clock';
import { conflict } from '../../domain/errors';
import { checkCron, nextFireTime } from '../../domain/cron';
import { effectiveTimeZone, type Job } from '../../domain/job';
import { slotsToCatchUp } from '../../domain/slotRules';
import { latestSlotAtOrBefore, type RunSlot, slotsBetween } from '../../domain/slots';
import { isPausedAt, RUNNING, type SchedulerState } from '../../domain/schedulerState';
import type { Logger } from '../../logging/logger';
import {
  abortableSleep,
  type AttemptRecorder,
  type ExecuteAttempt,
  runAttempts,
} from '../../runner/attemptLoop';
import type { ExecutionRecorder } from '../../scheduling/executionRecorder';
import type { SlotJudge } from '../../scheduling/slotJudge';
import type { Backfill } from '../../store/slots';
import { inProcessAttemptRecorder } from '../../scheduling/inProcessAttempts';
import { type ProcessIdentity, thisProcessIdentity } from '../../runner/processIdentity';
import { isTransientDatabaseError, retryWhileUnavailable } from '../../store/transient';
import type { Runtime } from '../runtime';
import { AbandonedRuns } from './abandonedRuns';
import { BackfillRuns, type StartedRun } from './backfillRuns';
import { slotsToCatchUpNow } from '../../scheduling/catchUpSlots';
import type { Leadership } from './leadership';
import type { LocalRuntimeStore } from './localRuntimeStore';
import { LoadedJobs } from './loadedJobs';
import { inTurns } from './inTurns';
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
  /**
   * Judges the slot ledger while this process leads (docs/slots.md); with `autoTick`, every
   * `judgeIntervalMs`, else when a test calls `judgeSlots`.
   */
  judge?: SlotJudge;
  judgeIntervalMs?: number;
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
  /** Judges the slots whose grace has passed at `now`, as the leader does every few seconds; resolves to how many. */
  judgeSlots(now?: Date): Promise<number>;
}

interface ScheduledEntry {
  job: Job;
  fields: string;
  timeZone: string;
  nextFire: Date;
}

interface ActiveRun extends StartedRun {
  jobId: number;
  /** A backfill's run is beside the schedule: a fire time during it still runs. */
  backfill: boolean;
  abort: AbortController;
  /** The job's run request this run holds (store/runRequests.ts), ended with the run; null: none. */
  claim: number | null;
}

/** A run request this process took while a run of its job was going here: it starts when that ends. */
interface DeferredRequest {
  job: Job;
  request: number;
}

/** Longest the timer sleeps, so a wall-clock jump is noticed within a minute. */
const MAX_TIMER_MS = 60_000;

/** How long a skipped fire time keeps trying to be recorded while the database is unreachable. */
const RECORD_RETRY_BUDGET_MS = 10 * 60_000;

const DEFAULT_HEARTBEAT_MS = 5000;
const DEFAULT_JUDGE_INTERVAL_MS = 5000;
/** Slots one stall's catch-up lists at most (a week of a schedule firing every minute). */
const MAX_STALL_SLOTS = 10_080;
/**
 * Due jobs whose fire is handled in one turn of the event loop (the check, the run's first
 * statements, its submission to the recorder): thousands firing at one minute leave the requests
 * their turns in between (their commands start a few a turn too: scheduling/inProcessAttempts.ts).
 */
const FIRES_PER_TURN = 50;
/** Six heartbeats: a busy machine or a slow database delays one or two, not six. */
const DEFAULT_OWNER_TIMEOUT_MS = 30_000;

/**
 * The in-process scheduler of `crondeck serve` without a cluster: it fires each enabled job at its
 * cron times in the job's time zone and runs the command as a child process.
 *
 * Rules (DESIGN.md): a fire time that comes while the job's previous run is still active is
 * recorded as `skipped`; fire times missed while the service was down or paused are replayed only
 * as the job's catch-up policy says (default none); a manual run never moves the next scheduled
 * one; every attempt is an execution row. Every run of the schedule names its slot (docs/slots.md).
 *
 * Several processes may share one database: only the one that leads (see leadership.ts) fires and
 * runs jobs. The others tell it nothing directly: it notices their writes (jobs, the scheduler
 * switch) by the versions in the database, and takes their run requests from a table.
 */
export class LocalRuntime implements Runtime, LocalRuntimeHooks {
  /** A save only moves an entry of the schedule kept here. */
  readonly savesInMemory = true;
  private readonly entries = new Map<number, ScheduledEntry>();
  /** The jobs loaded while leading, at which row versions: what a reload must read again. */
  private readonly loadedJobs: LoadedJobs;
  private readonly active = new Set<ActiveRun>();
  /** Writes started by ticks (skipped fire times, ended pauses), awaited by `tick` and `idle`. */
  private readonly housekeeping = new Set<Promise<unknown>>();
  private state: SchedulerState = RUNNING;
  private timer: NodeJS.Timeout | undefined;
  /** The clock time the timer is set for; Infinity when none is set. */
  private timerAt = Infinity;
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
  /** Slots each job's catch-up is to run, oldest first; the first is kept until its run has begun. */
  private readonly catchUps = new Map<number, Date[]>();
  private readonly backfills: BackfillRuns;
  /** Run requests taken while their job was running here, by job id. */
  private readonly deferred = new Map<number, DeferredRequest>();
  private judgeTimer: NodeJS.Timeout | undefined;
  private judging: Promise<number> | null = null;

  constructor(private readonly options: LocalRuntimeOptions) {
    this.identity = options.identity ?? thisProcessIdentity();
    this.loadedJobs = new LoadedJobs(options.store);
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
    this.backfills = new BackfillRuns({
      store: options.store,
      clock: options.clock,
      logger: options.logger,
      launch: (job, slot) => this.startRun(job, slot),
      jobOf: (jobId) => this.entries.get(jobId)?.job ?? null,
      mayRun: () => this.leading && !this.stopping,
    });
    // The judge waits for the slots a catch-up is about to run.
    options.judge?.deferTo((jobId) => this.catchUps.get(jobId)?.[0] ?? null);
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
    this.clearTimer();
    clearTimeout(this.syncTimer);
    clearTimeout(this.judgeTimer);
    await this.syncing;
    await this.judging;
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
    await this.backfills.settled();
    // Not started here: left for the next leader rather than lost with this process's registration.
    await this.giveBackDeferred();
    await Promise.allSettled([...this.housekeeping]);
    await this.closing;
    await this.options.leadership.stop();
    // Last: the runs this process started are recorded, or would be closed as its own once it is gone.
    await this.presence.stop();
  }

  async jobSaved(job: Job, rowVersion?: string): Promise<void> {
    // A follower keeps no schedule: the leader notices the write by the jobs' version.
    if (!this.leading) return;
    this.schedule(job);
    // The next reload reads this job only if its row has moved on from the version saved. A
    // version told inside a transaction that then rolls back matches no row: read again.
    if (rowVersion !== undefined) this.loadedJobs.saved(job.id, rowVersion);
    // Only a job that fires before the timer moves it: the timer's tick sets it again from every
    // job (a job that now fires later wakes it for nothing once), so a save costs no scan of them
    // all, which made each of many creations slower than the last.
    const fire = this.entries.get(job.id)?.nextFire.getTime() ?? Infinity;
    if (fire < this.timerAt) this.setTimer(fire);
  }

  /** A suspension is a change of whether the job fires, as an edit is. */
  suspensionChanged(job: Job): Promise<void> {
    return this.jobSaved(job);
  }

  async jobDeleted(jobId: number): Promise<void> {
    this.entries.delete(jobId);
    this.loadedJobs.deleted(jobId);
    this.catchUps.delete(jobId);
    this.deferred.delete(jobId);
    for (const run of this.active) if (run.jobId === jobId) run.abort.abort();
  }

  /**
   * A second run of a job while one is going (retries and their waits included) is refused, as a
   * fire time is skipped, whichever replica is asked: the job's one run request in the database
   * decides (store/runRequests.ts), not what a process holds in memory. The leader takes its own
   * request and starts the run at once; another replica's waits for the leader's next look.
   */
  async runNow(job: Job): Promise<void> {
    if (this.isRunning(job.id, true)) throw alreadyRunning(job);
    const leading = this.leading && this.processId !== null;
    const request = await this.options.store.runRequests.request(job.id, leading ? this.processId : null);
    if (request === null) throw alreadyRunning(job);
    if (leading) this.startTaken(job, request);
  }

  /** The backfill was recorded: the leader starts it (another process's leader finds it at its next sync). */
  async backfill(_job: Job, _backfill: Backfill): Promise<void> {
    if (this.leading) void this.backfills.sync().catch((error) => this.warnBackfills(error));
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

  async judgeSlots(now: Date = this.options.clock.now()): Promise<number> {
    await this.takingOver;
    if (!this.leading || this.stopping || !this.options.judge) return 0;
    return this.judgeOnce(now);
  }

  /**
   * Each due job fires once, however many of its fire times have passed: the run is the latest
   * slot's, and its next fire time is computed from `now`. The slots passed over (a stalled or
   * suspended process) are missed, unless the job's catch-up policy is `all`: then they run after
   * it, one at a time.
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
    // Every due job's next fire time moves at once; its fire is handled a few jobs a turn (below).
    const due: { entry: ScheduledEntry; first: Date; latest: Date }[] = [];
    for (const entry of this.entries.values()) {
      if (entry.nextFire.getTime() > now.getTime()) continue;
      const first = entry.nextFire;
      // Mostly one slot is due: the next one after it is then the next fire time, read once.
      const following = nextFireTime(entry.fields, entry.timeZone, first);
      const onTime = following.getTime() > now.getTime();
      const latest = onTime ? first : latestSlotAtOrBefore(entry.fields, entry.timeZone, first, now);
      entry.nextFire = onTime ? following : nextFireTime(entry.fields, entry.timeZone, now);
      if (!paused) due.push({ entry, first, latest });
    }
    await inTurns(due, FIRES_PER_TURN, ({ entry: dueEntry, first, latest }) => {
      // Checked and started in one turn, while this process still fires the job (as saved since).
      const entry = this.entries.get(dueEntry.job.id);
      if (this.stopping || !this.leading || !entry) return;
      const slot: RunSlot = { scheduledAt: latest, trigger: 'schedule' };
      if (this.isRunning(entry.job.id) || this.abandoned.isRunningElsewhere(entry.job.id))
        begun.push(this.recordSkipped(entry.job, slot));
      else begun.push(this.launch(entry.job, slot));
      if (latest.getTime() > first.getTime() && entry.job.catchUp?.policy === 'all') {
        const passedOver = slotsBetween(
          entry.fields,
          entry.timeZone,
          new Date(first.getTime() - 1),
          new Date(latest.getTime() - 1),
          MAX_STALL_SLOTS,
        );
        this.queueCatchUp(entry.job.id, slotsToCatchUp(entry.job.catchUp, passedOver, now));
      }
    });
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
      void this.track(this.giveBackDeferred());
      this.clearTimer();
      clearTimeout(this.judgeTimer);
      this.entries.clear();
      this.loadedJobs.clear();
      // The new leader works out the catch-ups and resumes the backfills from the database.
      this.catchUps.clear();
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
    await this.catchUpAfterGap();
    await this.backfills.sync();
    // Requests made while no process led, or given back by the previous leader.
    await this.startRequestedRuns();
    this.scheduleJudging();
  }

  /**
   * Runs what the jobs' catch-up policies say of the slots nothing ran for while no process led
   * (downtime, a fail-over); resolves once each job's first catch-up run has begun, so that the
   * judge, which starts next, finds it.
   */
  private async catchUpAfterGap(): Promise<void> {
    if (isPausedAt(this.state, this.options.clock.now())) return;
    const chosen = await slotsToCatchUpNow(this.options.store.slots, {
      jobs: [...this.entries.values()].map((entry) => entry.job),
      now: this.options.clock.now(),
      defaultTimeZone: this.options.defaultTimeZone,
    });
    const begun: Promise<void>[] = [];
    for (const [jobId, slots] of chosen) {
      this.options.logger.info('catching up missed slots', { jobId, count: slots.length });
      begun.push(this.queueCatchUp(jobId, slots));
    }
    await Promise.all(begun);
  }

  /** Adds slots to a job's catch-up; resolves once the next of its catch-up runs has begun, if one could. */
  private queueCatchUp(jobId: number, slots: Date[]): Promise<void> {
    if (slots.length === 0) return Promise.resolve();
    const queue = this.catchUps.get(jobId) ?? [];
    const known = new Set(queue.map((slot) => slot.getTime()));
    queue.push(...slots.filter((slot) => !known.has(slot.getTime())));
    queue.sort((a, b) => a.getTime() - b.getTime());
    this.catchUps.set(jobId, queue);
    return this.nextCatchUp(jobId);
  }

  /** Starts a job's next catch-up run when none of its runs is going; one at a time, oldest slot first. */
  private nextCatchUp(jobId: number): Promise<void> {
    const queue = this.catchUps.get(jobId);
    const entry = this.entries.get(jobId);
    if (!queue || queue.length === 0 || !entry || !this.leading || this.stopping) {
      if (!entry || !this.leading) this.catchUps.delete(jobId);
      return Promise.resolve();
    }
    if (this.isRunning(jobId) || isPausedAt(this.state, this.options.clock.now())) return Promise.resolve();
    const slot = queue[0]!;
    // Kept queued (the judge waits for it) until its first attempt's row is written.
    return this.launch(entry.job, { scheduledAt: slot, trigger: 'catchUp' }).finally(() => {
      const index = queue.indexOf(slot);
      if (index >= 0) queue.splice(index, 1);
      if (queue.length === 0 && this.catchUps.get(jobId) === queue) this.catchUps.delete(jobId);
    });
  }

  /** Judges the ledger every few seconds while this process leads, with real timers only. */
  private scheduleJudging(): void {
    if (!this.options.judge || this.options.autoTick === false || this.stopping || !this.leading) return;
    clearTimeout(this.judgeTimer);
    this.judgeTimer = setTimeout(() => {
      void this.judgeOnce(this.options.clock.now()).finally(() => this.scheduleJudging());
    }, this.options.judgeIntervalMs ?? DEFAULT_JUDGE_INTERVAL_MS);
    this.judgeTimer.unref();
  }

  private judgeOnce(now: Date): Promise<number> {
    const previous = this.judging ?? Promise.resolve(0);
    const pass = previous
      .catch(() => 0)
      .then(() => this.options.judge!.judge(now))
      .catch((error) => {
        this.options.logger.warn('could not judge slots; will try again', { err: error });
        return 0;
      });
    this.judging = pass.finally(() => {
      if (this.judging === pass) this.judging = null;
    });
    return pass;
  }

  /**
   * Starts the runs asked for through other processes, each once (a request is taken by one
   * process). One whose job runs in another live process (a previous leader finishing its runs)
   * is left waiting for a later look; one whose job runs here starts when that run ends.
   */
  private async startRequestedRuns(): Promise<void> {
    for (const { id, jobId } of await this.options.store.runRequests.listWaiting()) {
      if (!this.leading || this.stopping || this.processId === null) return;
      if (this.abandoned.isRunningElsewhere(jobId)) continue;
      const job = await this.options.store.findJob(jobId);
      if (!job || !(await this.options.store.runRequests.take(id, this.processId))) continue;
      this.startTaken(job, id);
    }
  }

  /**
   * Starts the run of a request this process took. Checked and started in one turn: a run of the
   * schedule that began meanwhile is never joined by a second; the request then waits for its end.
   */
  private startTaken(job: Job, request: number): void {
    if (!this.leading || this.stopping) {
      void this.track(this.giveBack([request]));
    } else if (this.isRunning(job.id, true)) {
      this.deferred.set(job.id, { job, request });
    } else {
      this.startRun(job, null, request);
    }
  }

  /** A run of the job ended here: a request waiting for it starts, if no other run of the job is going. */
  private startDeferred(jobId: number): void {
    const waiting = this.deferred.get(jobId);
    if (!waiting || this.isRunning(jobId, true)) return;
    this.deferred.delete(jobId);
    this.startTaken(waiting.job, waiting.request);
  }

  /** Puts the deferred requests back in the database, for whichever process leads next. */
  private giveBackDeferred(): Promise<void> {
    const requests = [...this.deferred.values()].map((waiting) => waiting.request);
    this.deferred.clear();
    return this.giveBack(requests);
  }

  private async giveBack(requests: number[]): Promise<void> {
    for (const request of requests) {
      await this.options.store.runRequests.giveBack(request).catch((error) =>
        this.options.logger.warn('could not give a run request back; it ends with this process', {
          request,
          err: error,
        }),
      );
    }
  }

  /** The run holding the job's request has ended: the job may run again, through any replica. */
  private async endClaim(run: ActiveRun): Promise<void> {
    const claim = run.claim;
    if (claim === null) return;
    await this.whileUnavailable(() => this.options.store.runRequests.end(claim)).catch((error) =>
      this.options.logger.error(
        'could not end a run request; the job stays claimed until this process stops',
        {
          jobId: run.jobId,
          err: error,
        },
      ),
    );
  }

  private warnBackfills(error: unknown): void {
    this.options.logger.warn('could not look for backfills', { err: error });
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
      await this.startRequestedRuns();
      // Backfills asked for through other processes.
      await this.backfills.sync();
    } catch (error) {
      this.options.logger.warn('could not look for changes from other processes', { err: error });
    }
  }

  /**
   * Brings the schedule up to the database: the scheduler switch, and the jobs that changed since
   * they were last loaded, new and deleted ones included (loadedJobs.ts).
   */
  private async reload(): Promise<void> {
    const [state, changes] = await Promise.all([
      this.options.store.loadSchedulerState(),
      this.loadedJobs.read(),
    ]);
    if (!this.leading) return;
    this.state = state;
    for (const { job } of changes.changed) this.schedule(job);
    if (changes.everyVersion) this.forgetJobsNotIn(changes.everyVersion);
    this.loadedJobs.apply(changes);
    this.arm();
  }

  /**
   * Drops the jobs deleted behind this process's back. A job deleted between the reads of the
   * versions and of the jobs is dropped by the next reload, which its deletion asks for.
   */
  private forgetJobsNotIn(versions: Map<number, string>): void {
    for (const id of [...this.entries.keys()]) if (!versions.has(id)) this.entries.delete(id);
    for (const id of [...this.catchUps.keys()]) if (!this.entries.has(id)) this.catchUps.delete(id);
    for (const id of [...this.deferred.keys()]) if (!versions.has(id)) this.deferred.delete(id);
    // A job deleted through another process: its run stops here as it would for a local deletion.
    for (const run of this.active) if (!versions.has(run.jobId)) run.abort.abort();
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
    // A watched CronJob's job runs on its cluster, never here (issue 40).
    if (!job.enabled || !check.valid || job.cronJob) {
      this.entries.delete(job.id);
      this.catchUps.delete(job.id);
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

  /** Whether a run of the job is going here; a backfill's counts only with `backfills`. */
  private isRunning(jobId: number, backfills = false): boolean {
    for (const run of this.active) if (run.jobId === jobId && (backfills || !run.backfill)) return true;
    return false;
  }

  private arm(): void {
    let earliest = Infinity;
    for (const entry of this.entries.values()) earliest = Math.min(earliest, entry.nextFire.getTime());
    if (this.state.paused && this.state.until) earliest = Math.min(earliest, this.state.until.getTime());
    this.setTimer(earliest);
  }

  /** Sets the timer for the clock time `at` (a tick, then `arm` again), in place of any set before. */
  private setTimer(at: number): void {
    if (this.options.autoTick === false || this.stopping || !this.leading) return;
    this.clearTimer();
    const now = this.options.clock.now().getTime();
    const delay = Math.max(0, Math.min(at - now, MAX_TIMER_MS));
    this.timerAt = now + delay;
    this.timer = setTimeout(() => {
      this.timerAt = Infinity;
      void this.tick().finally(() => this.arm());
    }, delay);
    this.timer.unref();
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timerAt = Infinity;
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

  private recordSkipped(job: Job, slot: RunSlot): Promise<void> {
    const now = this.options.clock.now();
    return this.track(
      this.whileUnavailable(() =>
        this.options.recorder.recordFinished(
          job,
          {
            status: 'skipped',
            startedAt: slot.scheduledAt,
            finishedAt: now,
            exitCode: -1,
            stdout: '',
            stderr: 'skipped: the previous run of this job was still in progress\n',
            attempt: 0,
            slot,
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
  private launch(job: Job, slot: RunSlot | null = null): Promise<void> {
    return this.startRun(job, slot).started;
  }

  /**
   * Starts a run, for `slot` if it has one (its attempts name it, its command sees it), holding the
   * run request `claim` if it was asked for. When a run ends, a request that waited for it starts;
   * when a run of the schedule ends, the job's next catch-up run, if any, starts.
   */
  private startRun(job: Job, slot: RunSlot | null, claim: number | null = null): ActiveRun {
    const abort = new AbortController();
    let begun!: () => void;
    const started = new Promise<void>((resolve) => (begun = resolve));
    const backfill = slot?.trigger === 'backfill';
    const run: ActiveRun = { jobId: job.id, backfill, abort, started, done: Promise.resolve(), claim };
    run.done = runAttempts({ ...job, scheduledAt: slot?.scheduledAt ?? null }, abort.signal, {
      recorder: this.claimingWhileWaiting(
        run,
        inProcessAttemptRecorder(this.options.recorder, job, this.processId, slot),
      ),
      logger: this.options.logger,
      execute: this.options.execute,
      sleep: this.options.sleep ?? abortableSleep,
      onAttemptStarted: begun,
      now: () => this.options.clock.now(),
    })
      .catch((error) => this.options.logger.error('run failed to record', { job: job.name, err: error }))
      .then(() => this.endClaim(run))
      .finally(() => {
        this.active.delete(run);
        begun();
        this.startDeferred(job.id);
        if (!backfill && this.catchUps.has(job.id)) void this.nextCatchUp(job.id);
      });
    this.active.add(run);
    return run;
  }

  /**
   * A run between attempts has none running for other replicas to see: before an attempt that is
   * to be retried is recorded as finished, the run takes the job's claim (unless it holds one), so
   * that run-now through any replica refuses during the wait as it did during the attempt.
   */
  private claimingWhileWaiting(run: ActiveRun, recorder: AttemptRecorder): AttemptRecorder {
    return {
      ...recorder,
      finishAttempt: async (executionId, result, finalAttempt) => {
        if (!finalAttempt && run.claim === null && this.processId !== null) {
          run.claim = await this.options.store.runRequests.hold(run.jobId, this.processId).catch((error) => {
            // The attempt's result comes first: a database that is away is ridden out by the
            // caller's retry, which tries the claim again; anything else leaves the wait unclaimed.
            if (isTransientDatabaseError(error)) throw error;
            this.options.logger.warn('could not claim the job while its run waits to retry', {
              jobId: run.jobId,
              err: error,
            });
            return null;
          });
        }
        return recorder.finishAttempt(executionId, result, finalAttempt);
      },
    };
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

function alreadyRunning(job: Job): Error {
  return conflict(`job "${job.name}" is already running; wait for its run to finish`);
}
