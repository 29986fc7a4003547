import { reportTokenFor } from '../../src/domain/reportToken';
import { pruneHistory } from '../../src/scheduling/retention';
import { listSlotsJson } from '../../src/store/slots';
import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { eventually, startTestService, type TestService } from '../support/service';
import type { SlotJson } from '../support/slotJson';

/**
 * GET /api/jobs/:id/slots answers pages it keeps while nothing they show has changed
 * (caching/slotPages.ts, migration 018). After every kind of change, the next GET of each page must
 * give exactly the bytes of an uncached read (the store's statement) and show the change itself.
 */

const SECRET = 'the-report-secret-of-this-test-0123456789';

interface Page {
  query: string;
  range: { from: Date | null; to: Date | null; limit: number };
}

/** The newest 100 (the default), the newest one, and a window of two. */
const PAGES: Page[] = [
  { query: '', range: { from: null, to: null, limit: 100 } },
  { query: '?limit=1', range: { from: null, to: null, limit: 1 } },
  {
    query: '?from=2026-06-01T10:10:00Z&to=2026-06-01T10:30:00Z&limit=2',
    range: { from: new Date('2026-06-01T10:10:00Z'), to: new Date('2026-06-01T10:30:00Z'), limit: 2 },
  },
];

/** What `judgedJob` leaves judged, newest first. */
const FIVE_MISSED = ['10:50 missed', '10:40 missed', '10:30 missed', '10:20 missed', '10:10 missed'];

describe('GET /api/jobs/:id/slots is never stale', () => {
  let service: TestService;
  let clock: ManualClock;
  let attempts: ControlledAttempts;
  const sql = (text: string, values: unknown[] = []) => service.db.pool.query(text, values);

  /** Every page of the job through HTTP, each checked byte for byte against an uncached read. */
  async function readFresh(id: number): Promise<SlotJson[][]> {
    const pages: SlotJson[][] = [];
    for (const page of PAGES) {
      const response = await service.request('GET', `/api/jobs/${id}/slots${page.query}`);
      const uncached = await listSlotsJson(service.db.pool, id, page.range);
      expect(uncached.body).not.toBeNull();
      expect({ status: response.status, text: response.text }).toEqual({ status: 200, text: uncached.body });
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      pages.push(response.body as SlotJson[]);
    }
    return pages;
  }

  /** The newest 100, after reading every page twice (so that each is kept). */
  async function readKept(id: number): Promise<SlotJson[]> {
    await readFresh(id);
    return (await readFresh(id))[0]!;
  }

  /** A job every 10 minutes, created at 10:00:30 and judged at 11:00: slots 10:10 to 10:50, missed. */
  async function judgedJob(): Promise<number> {
    clock.set('2026-06-01T10:00:30Z');
    const created = await service.request('POST', '/api/jobs', {
      name: `job-${Math.random().toString(36).slice(2)}`,
      schedule: '*/10 * * * *',
      command: 'true',
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect(await readKept(id)).toEqual([]);
    await service.local.judgeSlots(clock.set('2026-06-01T11:00:00Z'));
    return id;
  }

  const outcomes = (slots: SlotJson[]) =>
    slots.map((slot) => `${slot.scheduledAt.slice(11, 16)} ${slot.outcome}`);

  beforeAll(async () => {
    clock = new ManualClock('2026-06-01T10:00:30Z');
    attempts = new ControlledAttempts();
    service = await startTestService({
      clock,
      env: { SERVICE_REPORT_SECRET: SECRET },
      local: { execute: attempts.run },
    });
  });
  afterAll(async () => {
    while (attempts.pending.length > 0) attempts.finishNext();
    await service.stop();
  });
  afterEach(async () => {
    while (attempts.pending.length > 0) attempts.finishNext();
    await service.local.idle();
  });

  it('shows the slots the judge writes', async () => {
    const id = await judgedJob();
    expect(outcomes(await readKept(id))).toEqual(FIVE_MISSED);
    await service.local.judgeSlots(clock.set('2026-06-01T11:10:30Z'));
    expect(outcomes(await readKept(id))[0]).toBe('11:00 missed');
  });

  it('shows a missed slot turned late by its claim, then given its run by its report', async () => {
    const id = await judgedJob();
    await readKept(id);
    clock.set('2026-06-01T11:01:00Z');
    const claimed = await service.request(
      'POST',
      `/api/jobs/${id}/slots/claim`,
      { scheduledAt: '2026-06-01T10:50:00Z', runKey: 'very-late' },
      { authorization: `Bearer ${reportTokenFor(SECRET, id)}` },
    );
    expect(claimed).toMatchObject({ status: 200, body: { claimed: true } });
    const [turned] = await readKept(id);
    expect(turned).toMatchObject({ outcome: 'late', executionIds: [], delayMs: 660_000 });

    const recorded = await service.recorder.recordReport(
      id,
      {
        status: 'success',
        startedAt: new Date('2026-06-01T11:01:00.500Z'),
        finishedAt: new Date('2026-06-01T11:02:00Z'),
        exitCode: 0,
        stdout: '',
        stderr: '',
        attempt: 0,
        reportKey: 'pod:very-late:0',
        slot: { scheduledAt: new Date('2026-06-01T10:50:00Z'), trigger: 'schedule' },
      },
      true,
    );
    expect(recorded).not.toBeNull();
    const [filled] = await readKept(id);
    expect(filled).toMatchObject({ outcome: 'late', executionIds: [recorded!.id], delayMs: 660_500 });
  });

  it('shows a missed slot turned late by a run recorded without a claim', async () => {
    const id = await judgedJob();
    await readKept(id);
    await sql(
      `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, attempt,
                               scheduled_at, trigger)
       SELECT id, name, 'success', '2026-06-01T10:42:00Z', '2026-06-01T10:43:00Z', 60000, 0, 0,
              '2026-06-01T10:40:00Z', 'schedule'
       FROM jobs WHERE id = $1`,
      [id],
    );
    expect(outcomes(await readKept(id))[1]).toBe('10:40 late');
  });

  it('answers as a fresh read does across a backfill and the judgement that follows it', async () => {
    const id = await judgedJob();
    await readKept(id);
    clock.set('2026-06-01T11:05:00Z');
    const backfill = await service.request('POST', `/api/jobs/${id}/backfill`, {
      from: '2026-06-01T10:20:00Z',
      to: '2026-06-01T10:30:00Z',
    });
    expect(backfill).toMatchObject({ status: 202, body: { slots: 2 } });
    const startedBefore = attempts.started.length;
    for (let run = 1; run <= 2; run++) {
      await attempts.waitForStarted(startedBefore + run);
      attempts.finishNext();
    }
    await service.local.idle();
    await eventually(async () => {
      const { rows } = await sql(
        `SELECT count(*)::int AS n FROM executions WHERE job_id = $1 AND trigger = 'backfill' AND status <> 'running'`,
        [id],
      );
      return rows[0].n === 2 ? true : null;
    });
    // Backfill runs do not change the slots' outcomes (docs/slots.md).
    expect(outcomes(await readKept(id))).toEqual(FIVE_MISSED);
    await service.local.judgeSlots(clock.set('2026-06-01T11:10:30Z'));
    expect(outcomes(await readKept(id))[0]).toBe('11:00 missed');
  });

  it('shows retention pruning the oldest slots', async () => {
    const id = await judgedJob();
    await readKept(id);
    clock.set('2026-06-02T10:25:00Z');
    await pruneHistory(service.db.pool, clock, 1);
    expect(outcomes(await readKept(id))).toEqual(['10:50 missed', '10:40 missed', '10:30 missed']);
  });

  it('answers 404 once the job is deleted, and a page once a job with that id is created', async () => {
    const id = await judgedJob();
    await readKept(id);
    expect((await service.request('DELETE', `/api/jobs/${id}`)).status).toBe(200);
    expect(await service.request('GET', `/api/jobs/${id}/slots`)).toMatchObject({
      status: 404,
      body: { error: `job ${id} not found` },
    });

    // A 404 is no more kept than a page: the id's job created behind the service's back is listed.
    const { rows } = await sql(`SELECT last_value + 1 AS id FROM jobs_id_seq`);
    const next = Number(rows[0].id);
    for (let i = 0; i < 2; i++) {
      expect((await service.request('GET', `/api/jobs/${next}/slots`)).status).toBe(404);
    }
    const created = await service.request('POST', '/api/jobs', {
      name: `job-${next}`,
      schedule: '*/10 * * * *',
      command: 'true',
    });
    expect(created.body.id).toBe(next);
    expect(await readKept(next)).toEqual([]);
  });

  it('shows writes made in SQL behind its back, as another replica or a script makes them', async () => {
    const id = await judgedJob();
    await readKept(id);

    await sql(
      `UPDATE slots SET outcome = 'skipped', reason = 'by sql' WHERE job_id = $1 AND scheduled_at = $2`,
      [id, '2026-06-01T10:50:00Z'],
    );
    expect((await readKept(id))[0]).toMatchObject({ outcome: 'skipped', reason: 'by sql' });

    await sql(
      `INSERT INTO slots (job_id, scheduled_at, outcome, judged_at) VALUES ($1, '2026-06-01T11:00:00Z', 'ran', now())`,
      [id],
    );
    expect(outcomes(await readKept(id))[0]).toBe('11:00 ran');

    await sql(`DELETE FROM slots WHERE job_id = $1 AND scheduled_at >= '2026-06-01T10:30:00Z'`, [id]);
    expect(outcomes(await readKept(id))).toEqual(['10:20 missed', '10:10 missed']);

    await sql('TRUNCATE slots');
    expect(await readKept(id)).toEqual([]);

    await sql('DELETE FROM jobs WHERE id = $1', [id]);
    expect((await service.request('GET', `/api/jobs/${id}/slots`)).status).toBe(404);
  });
});
