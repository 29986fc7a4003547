import { ManualClock } from '../support/clock';
import { startTestService, type TestService } from '../support/service';

/**
 * GET /api/jobs and GET /api/executions reuse the lists they rendered while nothing changed. These
 * tests change the rows behind the service's back, as another replica or a bulk script would, and
 * by the clock alone, and expect every list to be what a fresh read gives.
 */
describe('the lists are never stale', () => {
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
    return response.body as {
      id: number;
      name: string;
      lastStatus: string | null;
      nextRun: string;
      running: unknown;
    }[];
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

  describe('executions', () => {
    let jobId: number;
    beforeAll(async () => {
      await sql('DELETE FROM jobs');
      const created = await service.request('POST', '/api/jobs', {
        name: 'history',
        schedule: '@daily',
        command: 'true',
      });
      jobId = created.body.id;
    });

    const executions = async (query = '') => {
      const response = await service.request('GET', `/api/executions${query}`);
      expect(response.status).toBe(200);
      return (response.body as { id: number; status: string }[]).map((e) => `${e.id}:${e.status}`);
    };
    const version = async () =>
      (await sql(`SELECT sum(version) AS version FROM list_versions WHERE name = 'executions'`)).rows[0]
        .version;
    const jobsVersion = async () =>
      (await sql(`SELECT sum(version) AS version FROM list_versions WHERE name = 'jobs'`)).rows[0].version;
    const insert = async (status: string, startedAt: string) =>
      (
        await sql(
          `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code)
           VALUES ($1, 'history', $2, $3, CASE WHEN $2 = 'running' THEN NULL ELSE $3::timestamptz END,
                   CASE WHEN $2 = 'running' THEN NULL ELSE 0 END, CASE WHEN $2 = 'running' THEN NULL ELSE 0 END)
           RETURNING id`,
          [jobId, status, startedAt],
        )
      ).rows[0].id as string;

    it('follow inserts, finishes, edits, pruning and cascades, per filter', async () => {
      expect(await executions()).toEqual([]);
      const old = await insert('success', '2026-05-01T00:00:00Z');
      expect(await executions()).toEqual([`${old}:success`]);
      expect(await executions('?status=failed')).toEqual([]);

      // An attempt starting is listed to those who ask for running ones, and on its job in the
      // job list; the default list holds finished executions only.
      expect(await executions('?status=running')).toEqual([]);
      const running = await insert('running', '2026-06-01T09:00:00Z');
      expect(await executions()).toEqual([`${old}:success`]);
      expect(await executions('?status=running')).toEqual([`${running}:running`]);
      expect(await executions(`?status=running&jobId=${jobId}`)).toEqual([`${running}:running`]);
      expect((await list())[0]?.running).toEqual({
        executionId: Number(running),
        startedAt: '2026-06-01T09:00:00.000Z',
        attempt: 0,
      });
      // Recording where its processes are changes no list: the versions stay.
      const before = await version();
      const jobsBefore = await jobsVersion();
      await sql(
        `UPDATE executions SET process_group = 1, process_start_ticks = 1, process_boot_id = 'x' WHERE id = $1`,
        [running],
      );
      expect([await version(), await jobsVersion()]).toEqual([before, jobsBefore]);

      await sql(
        `UPDATE executions SET status = 'failed', finished_at = now(), duration_ms = 1, exit_code = 1
                 WHERE id = $1`,
        [running],
      );
      expect(await executions()).toEqual([`${running}:failed`, `${old}:success`]);
      expect(await executions('?status=running')).toEqual([]);
      expect((await list())[0]?.running).toBeNull();
      expect(await executions('?status=failed')).toEqual([`${running}:failed`]);
      expect(await executions(`?jobId=${jobId}&limit=1`)).toEqual([`${running}:failed`]);

      await sql(`UPDATE executions SET status = 'timeout' WHERE id = $1`, [running]);
      expect(await executions('?status=failed')).toEqual([]);
      expect(await executions()).toEqual([`${running}:timeout`, `${old}:success`]);

      await sql(`DELETE FROM executions WHERE started_at < '2026-05-15T00:00:00Z'`);
      expect(await executions()).toEqual([`${running}:timeout`]);

      await sql('DELETE FROM jobs WHERE id = $1', [jobId]);
      expect(await executions()).toEqual([]);
      expect(await executions(`?jobId=${jobId}&limit=1`)).toEqual([]);
    });
  });
});
