/**
 * The slot judge under its issue's load (issue 20, docs/slots.md): thousands of jobs firing every
 * minute on a service of its own (in this process, on a database of its own, so that it leads and
 * judges), with pods' reports recorded while the judge runs. Used by bench/scenarios/slots.ts.
 *
 * The service is the build that `node dist/cli.js serve` runs, with its real local runtime (real
 * timers and clock, the judge every 5 s as configured by default) and one seam: the attempt runner
 * returns at once instead of spawning the command, so that 5,000 fires a minute cost the
 * scheduling, recording and judging, not 5,000 processes on a 2-core machine.
 */
import { Client } from 'pg';
import type { Job } from '../../src/domain/job';
import { type BenchContext, fromBuild, percentile, sleep } from '../harness';
import { instantCommand, startInProcessService } from '../inProcessService';

const { jobInputSchema } = fromBuild<typeof import('../../src/domain/job')>('domain/job');
const { ReportIngest } =
  fromBuild<typeof import('../../src/scheduling/reportIngest')>('scheduling/reportIngest');

export interface JudgingSettings {
  /** Jobs firing every minute. */
  jobs: number;
  /** Their grace, `lateAfterSeconds`. */
  graceSeconds: number;
  /** Minutes whose slots are measured. */
  minutes: number;
  /** Reports kept in flight around each judging. */
  reportsInFlight: number;
  /** Jobs the reports are spread over (their own, never firing). */
  reportJobs: number;
}

/** From `from` to `to`, epoch milliseconds. */
interface Interval {
  from: number;
  to: number;
}

/** One pass of the judge, as the local runtime ran it. */
interface JudgePass {
  startedAt: number;
  endedAt: number;
  judged: number;
}

export interface MinuteJudged {
  slot: Date;
  /** Slot rows of this minute at the end (one per job expected). */
  rows: number;
  /** Outcomes of these rows, e.g. { ran: 5000 }. */
  outcomes: Record<string, number>;
  /** From slot + grace to the row seen in the table (an upper bound, to the poll), in ms. */
  lagP50Ms: number;
  lagMaxMs: number;
}

export interface RecordingWhileJudging {
  /** The same reports on the same service before its minutely jobs existed: no judging, no fires. */
  baselinePerSecond: number;
  baselineSeconds: number;
  /** The same, reports of runs by hand (no slot: no slot lock, no slot trigger work). */
  baselineWithoutSlotPerSecond: number;
  /** Reports recorded in the windows around the judgements, per second of those windows. */
  windowPerSecond: number;
  windowSeconds: number;
  /** Reports recorded while a pass that wrote slots was running, per second of those passes. */
  duringPassesPerSecond: number;
  duringPassesSeconds: number;
  /** The rest of the windows. */
  outsidePassesPerSecond: number;
  recorded: number;
  failed: number;
}

export interface JudgingResult {
  settings: JudgingSettings;
  minutes: MinuteJudged[];
  passes: { writing: number; longestMs: number; medianWritingMs: number };
  /** Table statistics over the whole run, after the service stopped (its backends flushed them). */
  writes: {
    slotRows: number;
    slotInserts: number;
    slotUpdates: number;
    slotDeletes: number;
    cursorUpdates: number;
  };
  recording: RecordingWhileJudging;
  pollIntervalMs: number;
}

const POLL_INTERVAL_MS = 250;
const BASELINE_SECONDS = 5;

/**
 * Creates the jobs, waits for the first whole minute after, and measures `minutes` slots: when each
 * row appears, with reports recorded from a few seconds before each minute's judgement until after.
 */
export async function measureJudging(ctx: BenchContext, settings: JudgingSettings): Promise<JudgingResult> {
  const instant = instantCommand('');
  const databaseUrl = await ctx.freshDatabase('crondeck_slots');
  const service = await startInProcessService(databaseUrl, { local: { execute: instant } });
  const passes: JudgePass[] = [];
  // Timed where the runtime calls it: the same judge object, its time around each pass.
  const judgeOnce = service.judge.judge.bind(service.judge);
  service.judge.judge = async (now?: Date) => {
    const startedAt = Date.now();
    const judged = await judgeOnce(now);
    passes.push({ startedAt, endedAt: Date.now(), judged });
    return judged;
  };
  const database = new Client({ connectionString: databaseUrl });
  let stopped = false;
  try {
    await database.connect();
    const reportJobs: Job[] = [];
    for (let i = 0; i < settings.reportJobs; i++) {
      reportJobs.push(
        await service.jobs.create(
          jobInputSchema.parse({ name: `reported-${i}`, schedule: '@yearly', command: 'true' }),
        ),
      );
    }
    const reports = new ReportsInFlight(
      new ReportIngest(service.recorder),
      reportJobs,
      settings.reportsInFlight,
    );
    console.log(`  ${settings.reportsInFlight} reports in flight, before the minutely jobs exist`);
    const baselineWithoutSlot = await reports.measureFor(BASELINE_SECONDS, false);
    const baseline = await reports.measureFor(BASELINE_SECONDS, true);

    console.log(`  creating ${settings.jobs} jobs firing every minute (grace ${settings.graceSeconds} s)`);
    await createInParallel(settings.jobs, 8, (i) =>
      service.jobs.create(
        jobInputSchema.parse({
          name: `minutely-${i}`,
          schedule: '* * * * *',
          command: 'true',
          lateAfterSeconds: settings.graceSeconds,
        }),
      ),
    );
    // The first minute that every job has from its creation on.
    const firstSlot = Math.ceil((Date.now() + 2000) / 60_000) * 60_000;
    const slots = Array.from({ length: settings.minutes }, (_, i) => firstSlot + i * 60_000);
    const graceMs = settings.graceSeconds * 1000;
    const lastDue = slots[slots.length - 1]! + graceMs;
    console.log(
      `  measuring the slots of ${slots.map((s) => new Date(s).toISOString().slice(11, 16)).join(', ')}`,
    );

    const seen = new Map<number, { count: number; lags: number[] }>(
      slots.map((s) => [s, { count: 0, lags: [] }]),
    );
    const complete = () => [...seen.values()].every((each) => each.count >= settings.jobs);
    const windows: Interval[] = slots.map((s) => ({
      from: s + graceMs - 4000,
      to: s + graceMs + 12_000,
    }));
    // Polls until every measured slot is in, or until 60 s past the last one's bar.
    while (!complete() && Date.now() < lastDue + 60_000) {
      const now = Date.now();
      const inWindow = windows.some((w) => now >= w.from && now < w.to);
      if (inWindow) reports.start();
      else reports.stop();
      const rows = await database.query<{ at: string; n: number }>(
        `SELECT (extract(epoch FROM scheduled_at) * 1000)::bigint::text AS at, count(*)::int AS n
         FROM slots WHERE scheduled_at >= $1 AND scheduled_at <= $2 GROUP BY scheduled_at`,
        [new Date(slots[0]!), new Date(slots[slots.length - 1]!)],
      );
      const seenAt = Date.now();
      for (const row of rows.rows) {
        const entry = seen.get(Number(row.at));
        if (!entry || row.n <= entry.count) continue;
        const lag = seenAt - (Number(row.at) + graceMs);
        for (let k = entry.count; k < row.n; k++) entry.lags.push(lag);
        entry.count = row.n;
      }
      await sleep(POLL_INTERVAL_MS);
    }
    // The last window is measured whole, even when the judge was quicker.
    const lastWindow = windows[windows.length - 1]!;
    while (Date.now() < lastWindow.to) {
      reports.start();
      await sleep(POLL_INTERVAL_MS);
    }
    await reports.stopAndDrain();

    const outcomeRows = await database.query<{ at: string; outcome: string; n: number }>(
      `SELECT (extract(epoch FROM scheduled_at) * 1000)::bigint::text AS at, outcome, count(*)::int AS n
       FROM slots WHERE scheduled_at >= $1 AND scheduled_at <= $2 GROUP BY scheduled_at, outcome`,
      [new Date(slots[0]!), new Date(slots[slots.length - 1]!)],
    );
    const minutes = slots.map((slot): MinuteJudged => {
      const entry = seen.get(slot)!;
      const lags = [...entry.lags].sort((a, b) => a - b);
      const outcomes: Record<string, number> = {};
      for (const row of outcomeRows.rows) if (Number(row.at) === slot) outcomes[row.outcome] = row.n;
      return {
        slot: new Date(slot),
        rows: entry.count,
        outcomes,
        lagP50Ms: percentile(lags, 0.5),
        lagMaxMs: lags.length ? lags[lags.length - 1]! : NaN,
      };
    });

    await service.stop();
    stopped = true;
    // The service's connections are closed: their table statistics are flushed. Read on a new one.
    await database.end();
    const writes = await tableWrites(databaseUrl);
    const writing = passes.filter((p) => p.judged > 0);
    const writingMs = writing.map((p) => p.endedAt - p.startedAt).sort((a, b) => a - b);
    return {
      settings,
      minutes,
      passes: {
        writing: writing.length,
        longestMs: Math.max(0, ...passes.map((p) => p.endedAt - p.startedAt)),
        medianWritingMs: percentile(writingMs, 0.5),
      },
      writes,
      recording: {
        ...reports.summarise(baseline, windows, writing),
        baselineWithoutSlotPerSecond: reports.rateIn(baselineWithoutSlot),
      },
      pollIntervalMs: POLL_INTERVAL_MS,
    };
  } finally {
    if (!stopped) {
      await database.end().catch(() => undefined);
      await service.stop();
    }
  }
}

async function createInParallel(
  count: number,
  parallel: number,
  create: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await create(next++);
    }),
  );
}

async function tableWrites(databaseUrl: string): Promise<JudgingResult['writes']> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Statistics reach the shared counters when a backend flushes them; the service's have exited.
    const stats = async () =>
      (
        await client.query<{ relname: string; ins: string; upd: string; del: string }>(
          `SELECT relname, n_tup_ins::text AS ins, n_tup_upd::text AS upd, n_tup_del::text AS del
           FROM pg_stat_user_tables WHERE relname IN ('slots', 'slot_cursors')`,
        )
      ).rows;
    let rows = await stats();
    for (let i = 0; i < 20 && !rows.some((r) => r.relname === 'slots' && Number(r.ins) > 0); i++) {
      await sleep(250);
      rows = await stats();
    }
    const of = (name: string) => rows.find((r) => r.relname === name);
    const slotRows = Number(
      (await client.query<{ n: string }>('SELECT count(*)::text AS n FROM slots')).rows[0]!.n,
    );
    return {
      slotRows,
      slotInserts: Number(of('slots')?.ins ?? NaN),
      slotUpdates: Number(of('slots')?.upd ?? NaN),
      slotDeletes: Number(of('slots')?.del ?? NaN),
      cursorUpdates: Number(of('slot_cursors')?.upd ?? NaN),
    };
  } finally {
    await client.end();
  }
}

/**
 * Pods' final reports, each of a run for a slot (so that its recording takes its job's slot lock,
 * which a judgement of that job holds while it writes), kept `inFlight` at a time while started: a new one whenever one is
 * recorded, through the report ingest that `POST /api/jobs/:id/reports` calls (as the scheduler
 * scenario measures recording). The time each was recorded is kept.
 */
class ReportsInFlight {
  private running = false;
  private inFlight = 0;
  private next = 0;
  private readonly pending = new Set<Promise<void>>();
  readonly recordedAt: number[] = [];
  failed = 0;

  constructor(
    private readonly ingest: InstanceType<typeof ReportIngest>,
    private readonly jobs: Job[],
    private readonly width: number,
  ) {}

  /** Whether the reports name a slot (a scheduled run's) or not (a run by hand). */
  withSlot = true;

  /** Reports for `seconds` after a second's warm-up; the interval measured. */
  async measureFor(seconds: number, withSlot: boolean): Promise<Interval> {
    this.withSlot = withSlot;
    this.start();
    await sleep(1000);
    const from = Date.now();
    await sleep(seconds * 1000);
    const measured = { from, to: Date.now() };
    await this.stopAndDrain();
    this.withSlot = true;
    return measured;
  }

  rateIn(interval: Interval): number {
    return (
      this.recordedAt.filter((t) => t >= interval.from && t < interval.to).length /
      ((interval.to - interval.from) / 1000)
    );
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    while (this.inFlight < this.width) this.launch();
  }

  stop(): void {
    this.running = false;
  }

  async stopAndDrain(): Promise<void> {
    this.stop();
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private launch(): void {
    const n = this.next++;
    const job = this.jobs[n % this.jobs.length]!;
    const now = new Date();
    const uid = `bench-slots-${n}`;
    this.inFlight++;
    // Each report's run is for a slot of its own, as a job's runs are (one a minute from 1 January,
    // before the reports' jobs existed: never judged here). One slot for every report of a job
    // would put them all on one key of the executions' slot index (the same leaf page for every
    // insert of the job's), which no real job's runs do.
    const slot = new Date(Date.UTC(now.getUTCFullYear(), 0, 1) + Math.floor(n / this.jobs.length) * 60_000);
    const recording = this.ingest
      .record(job.id, {
        ...{ runUid: uid, podUid: uid, attempt: 0, final: true },
        ...{ status: 'success', exitCode: 0, stdout: 'ok\n', stderr: '', startedAt: now, finishedAt: now },
        ...(this.withSlot ? { scheduledAt: slot, trigger: 'schedule' as const } : {}),
      })
      .then(
        () => {
          this.recordedAt.push(Date.now());
        },
        () => {
          this.failed++;
        },
      )
      .finally(() => {
        this.inFlight--;
        this.pending.delete(recording);
        if (this.running) this.launch();
      });
    this.pending.add(recording);
  }

  summarise(
    baseline: Interval,
    windows: Interval[],
    writingPasses: JudgePass[],
  ): Omit<RecordingWhileJudging, 'baselineWithoutSlotPerSecond'> {
    const within = (from: number, to: number) => this.recordedAt.filter((t) => t >= from && t < to).length;
    const seconds = (intervals: Interval[]) => intervals.reduce((sum, i) => sum + (i.to - i.from) / 1000, 0);
    const recorded = (intervals: Interval[]) => intervals.reduce((sum, i) => sum + within(i.from, i.to), 0);
    // The passes, clipped to the windows (a pass outside them had no reports to slow down).
    const passes = writingPasses.flatMap((pass) =>
      windows.flatMap((w) => {
        const from = Math.max(w.from, pass.startedAt);
        const to = Math.min(w.to, pass.endedAt);
        return to > from ? [{ from, to }] : [];
      }),
    );
    const windowSeconds = seconds(windows);
    const windowRecorded = recorded(windows);
    const duringPassesSeconds = seconds(passes);
    const duringPasses = recorded(passes);
    return {
      baselinePerSecond: recorded([baseline]) / seconds([baseline]),
      baselineSeconds: seconds([baseline]),
      windowPerSecond: windowRecorded / windowSeconds,
      windowSeconds,
      duringPassesPerSecond: duringPassesSeconds > 0 ? duringPasses / duringPassesSeconds : NaN,
      duringPassesSeconds,
      outsidePassesPerSecond: (windowRecorded - duringPasses) / (windowSeconds - duringPassesSeconds),
      recorded: this.recordedAt.length,
      failed: this.failed,
    };
  }
}
