import { ManualClock } from '../support/clock';
import { startTestService, type TestService } from '../support/service';

/**
 * GET /api/jobs reuses the list it rendered last while nothing changed. These tests change the
 * jobs behind the service's back, as another replica or a bulk script would, and by the clock
 * alone, and expect every list to be what a fresh read gives.
 */
describe('the job list is never stale', () => {
  let service: TestService;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-01T10:00:30Z');
    service = await startTestService({ clock });
  });
  afterAll(async () => {
    await service.stop();
  });

  const list = async () => {
    const response = await service.request('GET', '/api/jobs');
    expect(response.status).toBe(200);
    return response.body as { id: number; name: string; lastStatus: string | null; nextRun: string }[];
  };
  const sql = (text: string, values: unknown[] = []) => service.db.pool.query(text, values);

  it('shows rows written directly to the database: inserts, updates, deletes', async () => {
    expect(await list()).toEqual([]);
    await service.request('POST', '/api/jobs', { name: 'api-made', schedule: '0 * * * *', command: 'true' });
    expect((await list()).map((job) => job.name)).toEqual(['api-made']);
    expect(await list()).toEqual(await list());

    await sql(`INSERT INTO jobs (name, schedule, command) VALUES ('sql-made', '0 * * * *', 'true')`);
    expect((await list()).map((job) => job.name)).toEqual(['api-made', 'sql-made']);

    await sql(`UPDATE jobs SET last_status = 'failed', last_run_at = now() WHERE name = 'sql-made'`);
    expect((await list()).find((job) => job.name === 'sql-made')?.lastStatus).toBe('failed');

    await sql(`DELETE FROM jobs WHERE name = 'api-made'`);
    expect((await list()).map((job) => job.name)).toEqual(['sql-made']);

    await sql('DELETE FROM jobs');
    expect(await list()).toEqual([]);
  });

  it('moves next runs on when their time comes, with no write at all', async () => {
    await service.request('POST', '/api/jobs', { name: 'hourly', schedule: '0 * * * *', command: 'true' });
    expect((await list())[0]?.nextRun).toBe('2026-06-01T11:00:00.000Z');
    clock.set('2026-06-01T10:59:59.999Z');
    expect((await list())[0]?.nextRun).toBe('2026-06-01T11:00:00.000Z');
    clock.set('2026-06-01T11:00:00.000Z');
    expect((await list())[0]?.nextRun).toBe('2026-06-01T12:00:00.000Z');
  });
});
