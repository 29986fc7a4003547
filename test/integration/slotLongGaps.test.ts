import { createLogger } from '../../src/logging/logger';
import { SlotJudge, type SlotJudgeOptions } from '../../src/scheduling/slotJudge';
import type { Database } from '../../src/store/database';
import { withTransaction } from '../../src/store/database';
import { SLOT_EVIDENCE_LOCK_KEY } from '../../src/store/migrations/017_slot_ledger';
import { claimSlot } from '../../src/store/slots';
import type { JudgedSlotOfJob } from '../../src/store/transactionHooks';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import { startTestService, type TestService } from '../support/service';
import type { SlotJson } from '../support/slotJson';

const quiet = createLogger({ level: 'error' });
const MISSED =
  "nothing started it: the service was not running, or no process was leading it, at that time (the job's catchUp policy is none, so it was not run later)";

/**
 * Cursors months behind (a restore, a long outage, rows written by SQL): the judge judges the slots
 * of which nothing is known as stretches, one row each, in batches of bounded work, and stops a pass
 * when asked (issue 38). The API still answers every fire time as a slot.
 */
describe('judging a long gap', () => {
  let db: Database;
  let clock: ManualClock;
  let service: TestService;

  beforeEach(async () => {
    db = await createTestDatabase();
    clock = new ManualClock('2026-06-01T10:00:30Z');
    service = await startTestService({ db, clock });
  });
  afterEach(async () => {
    await service.stop();
    await db.close();
  });

  async function createJob(body: Record<string, unknown>): Promise<{ id: number; name: string }> {
    const response = await service.request('POST', '/api/jobs', { command: 'true', ...body });
    expect(response.status).toBe(201);
    return response.body;
  }

  /** Moves the jobs' cursors `days` back, as a restore of an old backup (or SQL) would leave them. */
  async function cursorsBack(days: number, jobIds?: number[]): Promise<void> {
    await db.pool.query(
      `UPDATE slot_cursors SET judged_until = judged_until - make_interval(days => $1), due_at = NULL,
         last_slot_at = NULL, last_outcome = NULL
       WHERE $2::int[] IS NULL OR job_id = ANY($2::int[])`,
      [days, jobIds ?? null],
    );
  }

  const rowsOf = async (jobId: number) => {
    const singles = await db.pool.query('SELECT count(*)::int AS n FROM slots WHERE job_id = $1', [jobId]);
    const stretches = await db.pool.query<{
      first_at: Date;
      last_at: Date;
      slot_count: number;
      outcome: string;
    }>(
      'SELECT first_at, last_at, slot_count, outcome FROM slot_stretches WHERE job_id = $1 ORDER BY first_at',
      [jobId],
    );
    return { singles: singles.rows[0].n as number, stretches: stretches.rows };
  };
  const slotsOf = async (jobId: number, query = ''): Promise<SlotJson[]> => {
    const response = await service.request('GET', `/api/jobs/${jobId}/slots${query}`);
    expect(response.status).toBe(200);
    return response.body;
  };
  const missedAt = (time: string): SlotJson => ({
    scheduledAt: time,
    outcome: 'missed',
    executionIds: [],
    startedAt: null,
    delayMs: null,
    reason: MISSED,
  });
  const counted = async (outcome: string) =>
    Number(
      (await db.pool.query('SELECT total FROM slot_counters WHERE outcome = $1', [outcome])).rows[0].total,
    );

  it('keeps a month of slots of which nothing is known as one row, and answers each of its fire times', async () => {
    const job = await createJob({ name: 'minutely', schedule: '* * * * *' });
    await cursorsBack(30);
    expect(await service.local.judgeSlots(clock.set('2026-06-01T10:03:00Z'))).toBe(30 * 1440 + 2);

    // The created-at cursor was 10:00:30 thirty days back: its first slot is 10:01 then, its last 10:02 today.
    expect(await rowsOf(job.id)).toEqual({
      singles: 0,
      stretches: [
        {
          first_at: new Date('2026-05-02T10:01:00Z'),
          last_at: new Date('2026-06-01T10:02:00Z'),
          slot_count: 30 * 1440 + 2,
          outcome: 'missed',
        },
      ],
    });
    expect(await counted('missed')).toBe(30 * 1440 + 2);
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body.lastSlot).toEqual({
      scheduledAt: '2026-06-01T10:02:00.000Z',
      outcome: 'missed',
    });
    // Each fire time is a slot of the page, as if judged alone: newest first, `limit` of them.
    expect(await slotsOf(job.id, '?limit=3')).toEqual([
      missedAt('2026-06-01T10:02:00.000Z'),
      missedAt('2026-06-01T10:01:00.000Z'),
      missedAt('2026-06-01T10:00:00.000Z'),
    ]);
    // One fire time in the middle of the stretch, and a range across its start.
    expect(await slotsOf(job.id, '?from=2026-05-15T12:34:00Z&to=2026-05-15T12:34:00Z')).toEqual([
      missedAt('2026-05-15T12:34:00.000Z'),
    ]);
    expect(await slotsOf(job.id, '?from=2026-05-02T09:00:00Z&to=2026-05-02T10:02:30Z')).toEqual([
      missedAt('2026-05-02T10:02:00.000Z'),
      missedAt('2026-05-02T10:01:00.000Z'),
    ]);
    // A page of the most it may hold, all from the stretch.
    const page = await slotsOf(job.id, '?limit=1000&to=2026-05-20T00:00:00Z');
    expect(page).toHaveLength(1000);
    expect(page[0]).toEqual(missedAt('2026-05-20T00:00:00.000Z'));
    expect(page[999]).toEqual(missedAt('2026-05-19T07:21:00.000Z'));

    // The next slots are judged one by one again.
    expect(await service.local.judgeSlots(clock.set('2026-06-01T10:05:00Z'))).toBe(2);
    expect((await rowsOf(job.id)).singles).toBe(2);
    expect((await slotsOf(job.id, '?limit=4')).map((slot) => slot.scheduledAt.slice(11, 16))).toEqual([
      '10:04',
      '10:03',
      '10:02',
      '10:01',
    ]);
  });

  it('splits a gap where something is known: a hold, a skipped run, an attempt going', async () => {
    const job = await createJob({ name: 'hourly', schedule: '0 * * * *' });
    await cursorsBack(60);
    // Switched off for two days of it, a skipped fire time, and an attempt the service's crash left.
    await db.pool.query(
      `INSERT INTO slot_holds (job_id, kind, from_at, until_at, reason)
       VALUES ($1, 'suspended', '2026-04-10T00:00:00Z', '2026-04-12T00:00:00Z', 'the job was disabled at that time')`,
      [job.id],
    );
    await db.pool.query(
      `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, attempt,
                               scheduled_at, trigger, stderr)
       VALUES ($1, $2, 'skipped', '2026-04-20T05:00:00Z', '2026-04-20T05:00:01Z', 1000, -1, 0,
               '2026-04-20T05:00:00Z', 'schedule', 'skipped'),
              ($1, $2, 'failed', '2026-05-01T00:00:00Z', '2026-05-01T03:30:00Z', 12600000, 143, 0,
               '2026-05-01T00:00:00Z', 'schedule', '')`,
      [job.id, job.name],
    );
    await db.pool.query(
      `UPDATE executions SET reason = 'ServiceStopped' WHERE job_id = $1 AND status = 'failed'`,
      [job.id],
    );
    // Each pass judges what it can; the gap takes a few.
    let judged = 0;
    for (let pass = 0; pass < 10; pass++)
      judged += await service.local.judgeSlots(clock.set('2026-06-01T10:05:00Z'));
    const hours = (from: string, to: string) =>
      (new Date(to).getTime() - new Date(from).getTime()) / 3_600_000;
    expect(judged).toBe(hours('2026-04-02T11:00:00Z', '2026-06-01T10:00:00Z') + 1);

    const outcomeAt = async (time: string) =>
      (await slotsOf(job.id, `?from=${time}&to=${time}`)).map((slot) => [slot.outcome, slot.reason]);
    expect(await outcomeAt('2026-04-09T23:00:00Z')).toEqual([['missed', MISSED]]);
    expect(await outcomeAt('2026-04-10T00:00:00Z')).toEqual([
      ['suspended', 'the job was disabled at that time'],
    ]);
    expect(await outcomeAt('2026-04-11T23:00:00Z')).toEqual([
      ['suspended', 'the job was disabled at that time'],
    ]);
    expect(await outcomeAt('2026-04-12T00:00:00Z')).toEqual([['missed', MISSED]]);
    expect(await outcomeAt('2026-04-20T05:00:00Z')).toEqual([
      ['skipped', 'the previous run of this job was still in progress'],
    ]);
    expect(await outcomeAt('2026-05-01T00:00:00Z')).toEqual([['ran', null]]);
    const [crashed] = (
      await db.pool.query(`SELECT id FROM executions WHERE job_id = $1 AND status = 'failed'`, [job.id])
    ).rows;
    const going = `the previous run of this job (execution ${crashed.id}) was still in progress`;
    expect(await outcomeAt('2026-05-01T01:00:00Z')).toEqual([['skipped', going]]);
    expect(await outcomeAt('2026-05-01T03:00:00Z')).toEqual([['skipped', going]]);
    expect(await outcomeAt('2026-05-01T04:00:00Z')).toEqual([['missed', MISSED]]);
    // Rows for the slots with evidence, and a stretch for each run of slots alike: a handful, not 1,400.
    const rows = await rowsOf(job.id);
    expect(rows.singles).toBe(2);
    expect(rows.stretches.length).toBeLessThanOrEqual(10);
    expect(rows.stretches.reduce((sum, stretch) => sum + stretch.slot_count, 0) + rows.singles).toBe(judged);
    expect(rows.stretches.filter((stretch) => stretch.outcome === 'skipped')).toEqual([
      {
        first_at: new Date('2026-05-01T01:00:00Z'),
        last_at: new Date('2026-05-01T03:00:00Z'),
        slot_count: 3,
        outcome: 'skipped',
      },
    ]);
  });

  it('turns one slot of a missed stretch late when a run or a claim arrives for it, and leaves the others missed', async () => {
    const job = await createJob({ name: 'every-ten', schedule: '*/10 * * * *' });
    await cursorsBack(10);
    await service.local.judgeSlots(clock.set('2026-06-01T10:05:00Z'));
    expect((await rowsOf(job.id)).stretches).toHaveLength(1);

    const runStarted = new Date('2026-05-25T08:13:00Z');
    const execution = await service.recorder.recordFinished(
      (await service.jobs.get(job.id))!,
      {
        status: 'success',
        startedAt: runStarted,
        finishedAt: new Date('2026-05-25T08:14:00Z'),
        exitCode: 0,
        stdout: '',
        stderr: '',
        attempt: 0,
        slot: { scheduledAt: new Date('2026-05-25T08:10:00Z'), trigger: 'schedule' },
      },
      true,
    );
    await withTransaction(db.pool, (tx) =>
      claimSlot(tx, {
        jobId: job.id,
        scheduledAt: new Date('2026-05-25T09:00:00Z'),
        runKey: 'pod-uid-1',
        allowDuplicates: false,
        at: new Date('2026-05-25T09:30:00Z'),
      }),
    );
    const page = await slotsOf(job.id, '?from=2026-05-25T08:00:00Z&to=2026-05-25T09:10:00Z');
    expect(page.map((slot) => [slot.scheduledAt.slice(11, 16), slot.outcome, slot.executionIds])).toEqual([
      ['09:10', 'missed', []],
      ['09:00', 'late', []],
      ['08:50', 'missed', []],
      ['08:40', 'missed', []],
      ['08:30', 'missed', []],
      ['08:20', 'missed', []],
      ['08:10', 'late', [execution!.id]],
      ['08:00', 'missed', []],
    ]);
    expect(page[6]).toMatchObject({ startedAt: '2026-05-25T08:13:00.000Z', delayMs: 180_000 });
    expect(page[1]).toMatchObject({ startedAt: '2026-05-25T09:30:00.000Z', delayMs: 1_800_000 });
    // Counted as judged first, as any slot turned late is.
    expect(await counted('late')).toBe(0);
  });

  it('sends one missed alert for a stretch, naming how many slots it stands for', async () => {
    const job = await createJob({ name: 'alerted', schedule: '*/5 * * * *' });
    expect(
      (
        await service.request('PUT', `/api/jobs/${job.id}/alerts`, {
          webhooks: [{ url: 'http://127.0.0.1:9/missed', events: ['missed'] }],
          emails: [],
        })
      ).status,
    ).toBe(200);
    await cursorsBack(3);
    await service.local.judgeSlots(clock.set('2026-06-01T10:06:00Z'));
    const { rows } = await db.pool.query<{ subject: string; event: string; payload: unknown }>(
      'SELECT subject, event FROM alert_outbox WHERE job_id = $1',
      [job.id],
    );
    expect(rows).toEqual([{ subject: `slot:${job.id}:2026-05-29T10:05:00.000Z`, event: 'missed' }]);
  });

  describe('the judge’s work', () => {
    /** A judge over `db` that notes what each batch wrote, with `options`. */
    function notingJudge(options: Partial<SlotJudgeOptions>) {
      const batches: JudgedSlotOfJob[][] = [];
      const judge = new SlotJudge({
        pool: db.pool,
        clock,
        logger: quiet,
        defaultTimeZone: 'UTC',
        runtime: 'local',
        onJudged: async (_tx, judged) => void batches.push(judged),
        rest: async () => undefined,
        ...options,
      });
      return { judge, batches };
    }

    /** A skipped row for every slot of the job from `from` on, `count` of them, every `stepMs`: evidence everywhere. */
    async function skippedEverywhere(
      jobId: number,
      name: string,
      from: string,
      count: number,
      stepMs: number,
    ) {
      await db.pool.query(
        `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, attempt,
                                 scheduled_at, trigger, stderr)
         SELECT $1, $2, 'skipped', t, t, 0, -1, 0, t, 'schedule', 'skipped'
           FROM generate_series($3::timestamptz, $3::timestamptz + ($4 - 1) * make_interval(secs => $5 / 1000.0),
                                make_interval(secs => $5 / 1000.0)) AS t`,
        [jobId, name, from, count, stepMs],
      );
    }

    it('judges slots one by one in batches of bounded work, however many are due', async () => {
      const jobs = [
        await createJob({ name: 'dense-1', schedule: '* * * * *' }),
        await createJob({ name: 'dense-2', schedule: '* * * * *' }),
        await createJob({ name: 'dense-3', schedule: '* * * * *' }),
      ];
      await cursorsBack(1);
      for (const job of jobs) await skippedEverywhere(job.id, job.name, '2026-05-31T10:01:00Z', 1440, 60_000);
      const { judge, batches } = notingJudge({ slotsPerBatch: 100, maxSlotsPerJob: 5000 });
      let judged = 0;
      for (let pass = 0; pass < 5 && judged < 3 * 1441; pass++)
        judged += await judge.judge(clock.set('2026-06-01T10:02:00Z'));
      expect(judged).toBe(3 * 1441);
      expect(batches.length).toBeGreaterThanOrEqual((3 * 1441) / 100);
      for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(100);
    });

    it('plans at most a batch’s work of stretches at once', async () => {
      const jobs = [];
      for (let n = 0; n < 12; n++) jobs.push(await createJob({ name: `gap-${n}`, schedule: '* * * * *' }));
      await cursorsBack(20);
      const { judge, batches } = notingJudge({ slotsPerBatch: 60 });
      expect(await judge.judge(clock.set('2026-06-01T10:02:00Z'))).toBe(12 * (20 * 1440 + 1));
      // A stretch counts as 20 slots' work: three a batch.
      expect(batches.map((batch) => batch.length)).toEqual([3, 3, 3, 3]);
      for (const job of jobs) expect((await rowsOf(job.id)).stretches).toHaveLength(1);
    });

    it('ends a pass after the batch under way when its signal aborts (the service stopping)', async () => {
      const jobs = [
        await createJob({ name: 'stop-1', schedule: '* * * * *' }),
        await createJob({ name: 'stop-2', schedule: '* * * * *' }),
      ];
      await cursorsBack(1);
      for (const job of jobs) await skippedEverywhere(job.id, job.name, '2026-05-31T10:01:00Z', 1440, 60_000);
      const stop = new AbortController();
      const { judge, batches } = notingJudge({
        slotsPerBatch: 50,
        maxSlotsPerJob: 5000,
        onJudged: async (_tx, judged) => {
          batches.push(judged);
          stop.abort();
        },
      });
      expect(await judge.judge(clock.set('2026-06-01T10:02:00Z'), stop.signal)).toBe(50);
      expect(batches).toHaveLength(1);
      // Nothing is judged once stopped.
      expect(await judge.judge(clock.now(), stop.signal)).toBe(0);
    });

    it('ends a pass after the batch under way when stopped, and judges nothing after', async () => {
      const job = await createJob({ name: 'stopped', schedule: '* * * * *' });
      await cursorsBack(1);
      await skippedEverywhere(job.id, job.name, '2026-05-31T10:01:00Z', 1440, 60_000);
      const { judge, batches } = notingJudge({
        slotsPerBatch: 50,
        maxSlotsPerJob: 5000,
        onJudged: async (_tx, judged) => {
          batches.push(judged);
          judge.stop();
        },
      });
      expect(await judge.judge(clock.set('2026-06-01T10:02:00Z'))).toBe(50);
      expect(batches).toHaveLength(1);
      expect(await judge.judge(clock.now())).toBe(0);
    });

    it('ends its rest between batches when its signal aborts', async () => {
      const job = await createJob({ name: 'resting', schedule: '* * * * *' });
      await cursorsBack(1);
      await skippedEverywhere(job.id, job.name, '2026-05-31T10:01:00Z', 1440, 60_000);
      const stop = new AbortController();
      const judge = new SlotJudge({
        pool: db.pool,
        clock,
        logger: quiet,
        defaultTimeZone: 'UTC',
        runtime: 'local',
        slotsPerBatch: 50,
        maxSlotsPerJob: 5000,
        // A rest that would outlast the test, unless the abort ends it.
        restRatio: 1e9,
        onJudged: async () => void setImmediate(() => stop.abort()),
      });
      expect(await judge.judge(clock.set('2026-06-01T10:02:00Z'), stop.signal)).toBe(50);
    });
  });
});

describe('a long judging pass when the service stops', () => {
  it('ends after the batch under way: the stop does not wait for the pass', async () => {
    const db = await createTestDatabase();
    const clock = new ManualClock('2026-06-01T10:00:30Z');
    let service = await startTestService({ db, clock });
    const created = await service.request('POST', '/api/jobs', {
      name: 'behind',
      schedule: '* * * * *',
      command: 'true',
    });
    await service.stop();
    // Seven days of skipped fire times: evidence at every slot, judged one by one, 100 a batch.
    await db.pool.query(
      `UPDATE slot_cursors SET judged_until = judged_until - interval '7 days', due_at = NULL`,
    );
    await db.pool.query(
      `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, attempt,
                               scheduled_at, trigger, stderr)
       SELECT $1, 'behind', 'skipped', t, t, 0, -1, 0, t, 'schedule', 'skipped'
         FROM generate_series('2026-05-25T10:01:00Z'::timestamptz, '2026-06-01T10:00:00Z', interval '1 minute') AS t`,
      [created.body.id],
    );
    service = await startTestService({ db, clock });
    // The judge is held before its first batch: by the one session (embedded), or the judges' lock.
    const holder = await db.pool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock($1)', [SLOT_EVIDENCE_LOCK_KEY]);
    const judging = service.local.judgeSlots(clock.set('2026-06-01T10:02:00Z'));
    const judgeStopped = new Promise<void>((resolve) => {
      const stop = service.judge.stop.bind(service.judge);
      service.judge.stop = () => {
        stop();
        resolve();
      };
    });
    const stopping = service.stop();
    await judgeStopped;
    await holder.query('COMMIT');
    holder.release();
    await stopping;
    // At most the batch under way when the service stopped (on a server the judge was held inside
    // it, by the lock; on the embedded database before it, by the session): not the pass's twenty.
    expect(await judging).toBeLessThanOrEqual(100);
    await db.close();
  });
});
