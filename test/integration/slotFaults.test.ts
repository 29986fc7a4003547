import { createLogger } from '../../src/logging/logger';
import { pruneHistory } from '../../src/scheduling/retention';
import { AdvisoryLockLeadership } from '../../src/runtime/local/leadership';
import { SlotJudge } from '../../src/scheduling/slotJudge';
import { SLOT_JUDGE_LOCK_KEY, SlotJudgeLoop } from '../../src/scheduling/slotJudgeLoop';
import type { Database } from '../../src/store/database';
import { SLOT_EVIDENCE_LOCK_KEY } from '../../src/store/migrations/017_slot_ledger';
import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { createTestDatabase, onPostgresServer } from '../support/database';
import { eventually, startTestService, type TestService } from '../support/service';

const quiet = createLogger({ level: 'error' });

/** Slot rows and counters as the database has them. */
async function ledgerOf(db: Database, jobId: number) {
  const { rows } = await db.pool.query<{ scheduled_at: Date; outcome: string }>(
    'SELECT scheduled_at, outcome FROM slots WHERE job_id = $1 ORDER BY scheduled_at',
    [jobId],
  );
  const counters = await db.pool.query<{ total: string }>(
    'SELECT sum(total)::bigint AS total FROM slot_counters',
  );
  return {
    slots: rows.map((row) => `${row.scheduled_at.toISOString().slice(11, 16)} ${row.outcome}`),
    counted: Number(counters.rows[0]!.total),
  };
}

/** What goes wrong around the ledger: a judge dying mid-judgement, two judges at once, a fail-over. */
describe('the slot ledger under faults', () => {
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

  const judgeWith = (onJudged?: ConstructorParameters<typeof SlotJudge>[0]['onJudged']) =>
    new SlotJudge({
      pool: db.pool,
      clock,
      logger: quiet,
      defaultTimeZone: 'UTC',
      runtime: 'local',
      onJudged,
      batchSize: 2,
    });

  async function createJobs(count: number): Promise<number[]> {
    const ids: number[] = [];
    for (let k = 0; k < count; k++) {
      const response = await service.request('POST', '/api/jobs', {
        name: `faulty-${k}`,
        schedule: '*/10 * * * *',
        command: 'true',
      });
      ids.push(response.body.id);
    }
    return ids;
  }

  it('judges nothing when the judge dies before its transaction commits, and all of it once afterwards', async () => {
    const [a, b, c] = await createJobs(3);
    clock.set('2026-06-01T11:00:00Z');
    // Dies after writing the slots of its first batch, before the commit.
    const dying = judgeWith(async () => {
      throw new Error('the process died');
    });
    await expect(dying.judge()).rejects.toThrow('the process died');
    for (const id of [a!, b!, c!]) expect((await ledgerOf(db, id)).slots).toEqual([]);
    expect((await ledgerOf(db, a!)).counted).toBe(0);

    expect(await judgeWith().judge()).toBe(15);
    for (const id of [a!, b!, c!]) {
      expect((await ledgerOf(db, id)).slots).toEqual([
        '10:10 missed',
        '10:20 missed',
        '10:30 missed',
        '10:40 missed',
        '10:50 missed',
      ]);
    }
    expect((await ledgerOf(db, a!)).counted).toBe(15);
    expect(await judgeWith().judge()).toBe(0);
  });

  it('judges every slot once when two judges run at the same time', async () => {
    const ids = await createJobs(5);
    clock.set('2026-06-01T12:00:00Z');
    const judged = await Promise.all([judgeWith().judge(), judgeWith().judge(), judgeWith().judge()]);
    expect(judged.reduce((sum, n) => sum + n, 0)).toBe(5 * 11);
    for (const id of ids) expect((await ledgerOf(db, id)).slots).toHaveLength(11);
    expect((await ledgerOf(db, ids[0]!)).counted).toBe(55);
  });

  it('leaves the batch of a judge whose connection drops mid-judgement to the next judge', async () => {
    if (!onPostgresServer) return; // PGlite is one session: no connection of the judge's own to cut.
    const [job] = await createJobs(1);
    clock.set('2026-06-01T11:00:00Z');
    let reached!: () => void;
    const inside = new Promise<void>((resolve) => (reached = resolve));
    const stalled = judgeWith(async (tx) => {
      reached();
      await tx.query('SELECT pg_sleep(20)');
    });
    const dying = stalled.judge();
    await inside;
    // The server ends the judge's session, as it does when the process dies: the lock holder goes.
    const { rowCount } = await db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND mode = 'ExclusiveLock' AND objid = $1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [SLOT_EVIDENCE_LOCK_KEY],
    );
    expect(rowCount).toBe(1);
    await expect(dying).rejects.toThrow();
    expect((await ledgerOf(db, job!)).slots).toEqual([]);
    expect(await judgeWith().judge()).toBe(5);
    expect((await ledgerOf(db, job!)).counted).toBe(5);
  });
});

/** On a cluster no replica leads a local runtime: one replica judges, under a lock of its own. */
describe('the judge of a cluster’s replicas', () => {
  it('judges from one replica at a time, and from another once it is gone', async () => {
    if (!onPostgresServer) return; // The embedded database serves one process: it is never on a cluster.
    const db = await createTestDatabase();
    const clock = new ManualClock('2026-06-01T10:00:30Z');
    const loops: SlotJudgeLoop[] = [];
    try {
      const judge = () =>
        new SlotJudge({ pool: db.pool, clock, logger: quiet, defaultTimeZone: 'UTC', runtime: 'kubernetes' });
      const loop = () =>
        new SlotJudgeLoop({
          judge: judge(),
          leadership: new AdvisoryLockLeadership({
            openSession: db.openSession!,
            logger: quiet,
            lockKey: SLOT_JUDGE_LOCK_KEY,
            retryMs: 100,
          }),
          clock,
          logger: quiet,
          intervalMs: 50,
        });
      const { rows } = await db.pool.query<{ id: number }>(
        `INSERT INTO jobs (name, schedule, command) VALUES ('clustered', '*/5 * * * *', 'true') RETURNING id`,
      );
      const jobId = rows[0]!.id;
      // Its ledger starts at the test clock's 10:00 (a row inserted here was created by the server's).
      await db.pool.query(
        `INSERT INTO slot_cursors (job_id, judged_until, schedule) VALUES ($1, '2026-06-01T10:00:00Z', '*/5 * * * *')
        ON CONFLICT (job_id) DO UPDATE SET judged_until = EXCLUDED.judged_until, due_at = NULL`,
        [jobId],
      );
      loops.push(loop(), loop());
      for (const each of loops) await each.start();
      const held = await db.pool.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = $1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [SLOT_JUDGE_LOCK_KEY],
      );
      expect(held.rows[0].n).toBe(1);
      clock.set('2026-06-01T10:06:00Z');
      await eventually(async () => (await ledgerOf(db, jobId)).slots.length === 1);
      expect((await ledgerOf(db, jobId)).slots).toEqual(['10:05 missed']);
      const { rows: reasons } = await db.pool.query('SELECT reason FROM slots');
      expect(reasons[0].reason).toContain('the cluster created no Job for it');
      // The judging replica stops: the other takes the lock and judges on.
      await loops.shift()!.stop();
      clock.set('2026-06-01T10:11:00Z');
      await eventually(async () => (await ledgerOf(db, jobId)).slots.length === 2);
      expect((await ledgerOf(db, jobId)).counted).toBe(2);
    } finally {
      for (const each of loops) await each.stop();
      await db.close();
    }
  });
});

/**
 * The fail-over gap of issue 20: the leader stops just before a fire time and the follower leads
 * just after it. Before the ledger that fire time left no row at all.
 */
describe('a fail-over gap between two services on one PostgreSQL', () => {
  let db: Database;
  let clock: ManualClock;
  let attempts: ControlledAttempts;
  let a: TestService;
  let b: TestService;

  beforeEach(async () => {
    if (!onPostgresServer) return;
    db = await createTestDatabase();
    clock = new ManualClock('2026-06-01T10:00:30Z');
    attempts = new ControlledAttempts();
    a = await startTestService({ db, clock, local: { execute: attempts.run, syncIntervalMs: null } });
    b = await startTestService({ db, clock, local: { execute: attempts.run, syncIntervalMs: null } });
  });
  afterEach(async () => {
    if (!onPostgresServer) return;
    while (attempts.pending.length > 0) attempts.finishNext();
    await a.stop();
    await b.stop();
    await db.close();
  });

  async function failOver(body: Record<string, unknown>): Promise<number> {
    expect(a.local.isLeading()).toBe(true);
    const job = (await a.request('POST', '/api/jobs', { schedule: '* * * * *', command: 'true', ...body }))
      .body;
    clock.set('2026-06-01T10:00:59.350Z');
    await a.local.tick();
    await a.stop();
    clock.set('2026-06-01T10:01:01.250Z');
    await eventually(async () => b.local.isLeading());
    await b.local.sync();
    return job.id;
  }

  it('judges the fire time that fell between the two leaders missed', async () => {
    if (!onPostgresServer) return;
    const jobId = await failOver({ name: 'gap' });
    expect(attempts.started).toEqual([]);
    await b.local.judgeSlots(clock.set('2026-06-01T10:02:01.250Z'));
    const [slot] = (await b.request('GET', `/api/jobs/${jobId}/slots`)).body;
    expect(slot).toMatchObject({ scheduledAt: '2026-06-01T10:01:00.000Z', outcome: 'missed' });
    expect(slot.reason).toContain('no process was leading it');
    expect((await b.request('GET', `/api/executions?jobId=${jobId}`)).body).toEqual([]);
  });

  it('runs that fire time on taking over when the job catches up, within its grace: ran', async () => {
    if (!onPostgresServer) return;
    const jobId = await failOver({ name: 'gap-caught', catchUp: { policy: 'latest' } });
    await attempts.waitForStarted(1);
    attempts.finishNext();
    await b.local.idle();
    await b.local.judgeSlots(clock.set('2026-06-01T10:02:01.250Z'));
    const [slot] = (await b.request('GET', `/api/jobs/${jobId}/slots`)).body;
    expect(slot).toMatchObject({ scheduledAt: '2026-06-01T10:01:00.000Z', outcome: 'ran', delayMs: 1250 });
  });
});

/** What arrives late, and what is pruned. */
describe('the slot ledger over time', () => {
  let clock: ManualClock;
  let service: TestService;

  beforeAll(async () => {
    clock = new ManualClock('2026-06-01T10:00:30Z');
    service = await startTestService({ clock });
  });
  afterAll(async () => {
    await service.stop();
  });

  it('turns a slot judged missed late when a run for it is recorded after all (a very late cluster Job)', async () => {
    const job = (
      await service.request('POST', '/api/jobs', {
        name: 'late-report',
        schedule: '*/5 * * * *',
        command: 'true',
      })
    ).body;
    await service.local.judgeSlots(clock.set('2026-06-01T10:06:30Z'));
    const slotsOf = async () => (await service.request('GET', `/api/jobs/${job.id}/slots`)).body;
    expect(await slotsOf()).toMatchObject([{ scheduledAt: '2026-06-01T10:05:00.000Z', outcome: 'missed' }]);
    const stored = (await service.request('GET', `/api/jobs/${job.id}`)).body;
    const at = (time: string) => new Date(time);
    const recorded = await service.recorder.recordFinished(
      { ...stored, createdAt: at(stored.createdAt), updatedAt: at(stored.updatedAt) },
      {
        status: 'success',
        startedAt: at('2026-06-01T10:09:00Z'),
        finishedAt: at('2026-06-01T10:09:05Z'),
        exitCode: 0,
        stdout: '',
        stderr: '',
        attempt: 0,
        reportKey: 'pod:very-late:0',
        slot: { scheduledAt: at('2026-06-01T10:05:00Z'), trigger: 'schedule' },
      },
      true,
    );
    expect(await slotsOf()).toEqual([
      {
        scheduledAt: '2026-06-01T10:05:00.000Z',
        outcome: 'late',
        executionIds: [recorded!.id],
        startedAt: '2026-06-01T10:09:00.000Z',
        delayMs: 240_000,
        reason: 'judged missed, then a run for it started late',
      },
    ]);
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body.lastSlot).toEqual({
      scheduledAt: '2026-06-01T10:05:00.000Z',
      outcome: 'late',
    });
    // The counter keeps the outcome first given.
    expect((await service.request('GET', '/metrics')).text).toContain(
      'service_slots_total{outcome="missed"} 1',
    );
  });

  it('prunes the ledger with the executions’ retention, and keeps its counters', async () => {
    const job = (
      await service.request('POST', '/api/jobs', { name: 'pruned', schedule: '0 * * * *', command: 'true' })
    ).body;
    await service.local.judgeSlots(clock.set('2026-06-01T14:30:00Z'));
    const before = (await service.request('GET', `/api/jobs/${job.id}/slots`)).body;
    expect(before.length).toBeGreaterThanOrEqual(3);
    await pruneHistory(service.db.pool, { now: () => new Date('2026-08-30T13:30:00Z') }, 90);
    // 90 days before 13:30 on 30 August is 13:30 on 1 June: the slots of 11:00 to 13:00 go.
    const after = (await service.request('GET', `/api/jobs/${job.id}/slots`)).body;
    expect(after.map((slot: { scheduledAt: string }) => slot.scheduledAt)).toEqual([
      '2026-06-01T14:00:00.000Z',
    ]);
    expect((await service.request('GET', '/metrics')).text).toMatch(
      /service_slots_total\{outcome="missed"\} [1-9]/,
    );
  });
});
