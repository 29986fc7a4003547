import { createLogger } from '../../src/logging/logger';
import { SlotJudge } from '../../src/scheduling/slotJudge';
import type { Database } from '../../src/store/database';
import { findJob } from '../../src/store/jobs';
import { SLOT_EVIDENCE_LOCK_KEY, TURNED_LATE_REASON } from '../../src/store/migrations/017_slot_ledger';
import { ManualClock } from '../support/clock';
import { createTestDatabase, onPostgresServer } from '../support/database';
import { eventually, startTestService, type TestService } from '../support/service';

const quiet = createLogger({ level: 'error' });

/**
 * The evidence locks (store/slots.ts, migration 019): a run recorded while its slot is judged is
 * either seen by the judgement or completes the slot it wrote, and a recording waits only for a
 * judgement of its own job. Both need two sessions at once: a PostgreSQL server (PGlite is one
 * session, and runs one transaction at a time whatever the locks).
 */
describe('the slot evidence locks', () => {
  let db: Database;
  let clock: ManualClock;
  let service: TestService;

  beforeEach(async () => {
    if (!onPostgresServer) return;
    db = await createTestDatabase();
    clock = new ManualClock('2026-06-01T10:00:30Z');
    service = await startTestService({ db, clock });
  });
  afterEach(async () => {
    if (!onPostgresServer) return;
    await service.stop();
    await db.close();
  });

  const judgeWith = (
    options: Partial<Pick<ConstructorParameters<typeof SlotJudge>[0], 'onJudged' | 'batchSize'>> = {},
  ) =>
    new SlotJudge({
      pool: db.pool,
      clock,
      logger: quiet,
      defaultTimeZone: 'UTC',
      runtime: 'local',
      ...options,
    });

  async function createJob(name: string, schedule: string): Promise<number> {
    return (await service.request('POST', '/api/jobs', { name, schedule, command: 'true' })).body.id;
  }

  /** A pod's final report of a run for `slot` that started at `startedAt`. */
  function report(jobId: number, key: string, slot: Date, startedAt: Date) {
    return service.recorder.recordReport(
      jobId,
      {
        status: 'success',
        startedAt,
        finishedAt: startedAt,
        exitCode: 0,
        stdout: '',
        stderr: '',
        attempt: 0,
        reportKey: `pod:${key}:0`,
        slot: { scheduledAt: slot, trigger: 'schedule' },
      },
      true,
    );
  }

  /** `work`'s outcome, or a rejection once it has waited `seconds` (a recording held by a lock). */
  function within<T>(work: Promise<T>, seconds: number): Promise<T> {
    let timer!: NodeJS.Timeout;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`still waiting after ${seconds} s`)), seconds * 1000);
    });
    return Promise.race([work, limit]).finally(() => clearTimeout(timer));
  }

  /** Whether a session waits for the evidence lock of `jobId`. */
  async function waitsForLockOf(jobId: number): Promise<boolean> {
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted AND classid = $1 AND objid = $2 AND objsubid = 2
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [SLOT_EVIDENCE_LOCK_KEY, jobId],
    );
    return rows[0]!.n > 0;
  }

  it('records a run of one job while another job’s slots are being judged, and holds one of that job until the judgement commits', async () => {
    if (!onPostgresServer) return;
    const yearly = await createJob('yearly', '0 0 1 1 *');
    const judged = await createJob('every-ten', '*/10 * * * *');
    // Both cursors get their next slot: only every-ten has one due at 10:11.
    await judgeWith().judge();
    clock.set('2026-06-01T10:11:00Z');
    let reached!: () => void;
    const inside = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const judging = judgeWith({
      onJudged: async () => {
        reached();
        await released;
      },
    }).judge();
    await inside;
    try {
      // every-ten's 10:10 is written, uncommitted, its job's lock held: another job records on.
      const recorded = await within(
        report(yearly, 'yearly-run', new Date('2026-01-01T00:00:00Z'), new Date('2026-06-01T10:10:30Z')),
        15,
      );
      expect(recorded).toMatchObject({ jobId: yearly, status: 'success' });
      // A run of the job being judged waits for the judgement…
      const sameJob = report(
        judged,
        'late-pod',
        new Date('2026-06-01T10:10:00Z'),
        new Date('2026-06-01T10:10:20Z'),
      );
      await eventually(() => waitsForLockOf(judged));
      release();
      expect(await judging).toBe(1);
      const run = await sameJob;
      // …then finds the slot it judged missed, and completes it.
      const { rows } = await db.pool.query(
        'SELECT outcome, execution_ids, reason FROM slots WHERE job_id = $1',
        [judged],
      );
      expect(rows).toEqual([
        { outcome: 'late', execution_ids: [String(run!.id)], reason: TURNED_LATE_REASON },
      ]);
    } finally {
      release();
      await judging.catch(() => undefined);
    }
  });

  it('gives every slot one outcome, never missed with a run, when its runs are recorded while it is judged', async () => {
    if (!onPostgresServer) return;
    const jobs: number[] = [];
    for (let k = 0; k < 12; k++) jobs.push(await createJob(`raced-${k}`, '* * * * *'));
    const judge = judgeWith({ batchSize: 2 });
    await judge.judge();
    const rounds = 12;
    const recordedRuns = new Map<string, number>();
    for (let round = 1; round <= rounds; round++) {
      const slot = new Date(Date.parse('2026-06-01T10:00:00Z') + round * 60_000);
      const now = clock.set(new Date(slot.getTime() + 61_000).toISOString());
      // The judge's pass and the runs' reports, all at once: the runs started within their grace.
      const recordings = jobs.map(async (jobId, k) => {
        // Spread over the pass: some before a batch takes the job, some during, some after.
        for (let wait = 0; wait < (k * round) % 5; wait++)
          await new Promise((resolve) => setImmediate(resolve));
        const startedAt = new Date(slot.getTime() + 5_000);
        // A pod's report (the recorder takes the job's lock first thing), or a local run's row
        // opened on its own (its statement's trigger takes it).
        const id =
          k % 2 === 0
            ? (await report(jobId, `r${round}-${jobId}`, slot, startedAt))!.id
            : await service.recorder.start((await findJob(db.pool, jobId))!, 0, startedAt, null, {
                scheduledAt: slot,
                trigger: 'schedule',
              });
        recordedRuns.set(`${jobId}@${slot.toISOString()}`, id);
      });
      const [judged] = await Promise.all([judge.judge(now), ...recordings]);
      expect(judged).toBe(jobs.length);
    }
    const { rows } = await db.pool.query<{
      job_id: number;
      scheduled_at: Date;
      outcome: string;
      execution_ids: string[];
    }>(
      `SELECT job_id, scheduled_at, outcome, execution_ids FROM slots
        WHERE job_id = ANY($1::int[]) ORDER BY job_id, scheduled_at`,
      [jobs],
    );
    // One row a slot (the primary key), and every slot of every round has one.
    expect(rows).toHaveLength(jobs.length * rounds);
    for (const row of rows) {
      const run = recordedRuns.get(`${row.job_id}@${row.scheduled_at.toISOString()}`);
      expect({ slot: `${row.job_id}@${row.scheduled_at.toISOString()}`, outcome: row.outcome }).toEqual({
        slot: `${row.job_id}@${row.scheduled_at.toISOString()}`,
        outcome: expect.stringMatching(/^(ran|late)$/),
      });
      expect(row.execution_ids).toEqual([String(run)]);
    }
    const counters = await db.pool.query<{ total: string }>(
      'SELECT sum(total)::bigint AS total FROM slot_counters',
    );
    expect(Number(counters.rows[0]!.total)).toBe(jobs.length * rounds);
  });
});
