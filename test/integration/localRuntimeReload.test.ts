import type { QueryConfig } from 'pg';
import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { onPostgresServer } from '../support/database';
import { startTestService, type TestService } from '../support/service';

/** Two sessions at once: PGlite is one. */
const itOnServer = onPostgresServer ? it : it.skip;

/**
 * The leader reloads its schedule when a job's definition changes, whoever changed it. It reads
 * the row versions of the jobs written since its last reload and only the jobs whose version
 * moved: a burst of creations through the API (each scheduled at once, with its row's version)
 * reads none of those jobs, and not every job's version each second. Every job's version is read
 * only when jobs were deleted behind its back.
 */
describe("the local runtime's reload", () => {
  let service: TestService;
  let clock: ManualClock;
  let attempts: ControlledAttempts;
  /** The statements the service sends through its pool. */
  let queries: jest.SpyInstance;

  const create = async (name: string, schedule = '0 * * * *') =>
    (await service.request('POST', '/api/jobs', { name, schedule, command: 'true' })).body.id as number;
  /** The ids of the jobs read whole (store/jobs.ts findJobsWithRowVersions), in order. */
  const idsLoaded = () =>
    queries.mock.calls
      .map(([config]) => config as QueryConfig)
      .filter((config) => config.name === 'crondeck_find_jobs_with_row_versions')
      .flatMap((config) => config.values![0] as number[])
      .sort((a, b) => a - b);
  const nextFire = (id: number) => service.local.nextFireTimes().get(id)?.toISOString();
  /** How many times every job's version was read (store/jobs.ts listJobRowVersions). */
  const fullVersionReads = () =>
    queries.mock.calls.filter(([config]) => (config as QueryConfig).name === 'crondeck_list_job_row_versions')
      .length;
  const sql = (text: string, values: unknown[] = []) => service.db.pool.query(text, values);

  beforeEach(async () => {
    clock = new ManualClock('2026-06-01T10:00:30Z');
    attempts = new ControlledAttempts();
    // No background syncing: the test says when the leader looks for changes.
    service = await startTestService({ clock, local: { execute: attempts.run, syncIntervalMs: null } });
    queries = jest.spyOn(service.db.pool, 'query');
  });
  afterEach(async () => {
    queries.mockRestore();
    while (attempts.pending.length > 0) attempts.finishNext();
    await service.stop();
  });

  it('reads none of the jobs created through the API, and nothing while nothing changes', async () => {
    const first = await create('a');
    await service.local.sync();
    expect(idsLoaded()).toEqual([]);
    const created = [await create('b'), await create('c')];
    // Scheduled as they were created, with the versions of their rows: no reload reads them.
    for (const id of [first, ...created]) expect(nextFire(id)).toBe('2026-06-01T11:00:00.000Z');
    await service.local.sync();
    await service.local.sync();
    expect(idsLoaded()).toEqual([]);
    // Changed behind its back: read.
    await sql(`UPDATE jobs SET schedule = '30 * * * *' WHERE id = $1`, [created[0]]);
    await service.local.sync();
    expect(idsLoaded()).toEqual([created[0]]);
    expect(nextFire(created[0]!)).toBe('2026-06-01T10:30:00.000Z');
  });

  it('reads only what changed behind its back, and takes each change', async () => {
    const [kept, edited, disabled, deleted] = [
      await create('kept'),
      await create('edited'),
      await create('disabled'),
      await create('deleted'),
    ];
    await service.local.sync();
    queries.mockClear();

    await sql(`UPDATE jobs SET schedule = '30 * * * *' WHERE id = $1`, [edited]);
    await sql('UPDATE jobs SET enabled = false WHERE id = $1', [disabled]);
    await sql('DELETE FROM jobs WHERE id = $1', [deleted]);
    const added = (
      await sql(
        `INSERT INTO jobs (name, schedule, command) VALUES ('added', '45 * * * *', 'true') RETURNING id`,
      )
    ).rows[0].id as number;
    await service.local.sync();

    expect(idsLoaded()).toEqual([edited, disabled, added]);
    expect(nextFire(kept)).toBe('2026-06-01T11:00:00.000Z');
    expect(nextFire(edited)).toBe('2026-06-01T10:30:00.000Z');
    expect(nextFire(disabled)).toBeUndefined();
    expect(nextFire(deleted)).toBeUndefined();
    expect(nextFire(added)).toBe('2026-06-01T10:45:00.000Z');

    // Switched on again behind its back: read again, scheduled again.
    queries.mockClear();
    await sql('UPDATE jobs SET enabled = true WHERE id = $1', [disabled]);
    await service.local.sync();
    expect(idsLoaded()).toEqual([disabled]);
    expect(nextFire(disabled)).toBe('2026-06-01T11:00:00.000Z');

    // The edited job fires on its new schedule, with what the database holds.
    clock.set('2026-06-01T10:30:00Z');
    await service.local.tick();
    expect(attempts.started.map((run) => run.jobName)).toEqual(['edited']);
  });

  it("reads every job's version only after jobs were deleted behind its back", async () => {
    const [kept, gone] = [await create('kept'), await create('gone')];
    await service.local.sync();
    queries.mockClear();
    const added = await create('added');
    await sql(`UPDATE jobs SET schedule = '30 * * * *' WHERE id = $1`, [kept]);
    await service.local.sync();
    expect(idsLoaded()).toEqual([kept]);
    expect(nextFire(added)).toBe('2026-06-01T11:00:00.000Z');
    // Deleted through the API: the runtime is told, and the count still adds up.
    await service.request('DELETE', `/api/jobs/${added}`);
    await service.local.sync();
    expect(fullVersionReads()).toBe(0);
    expect(nextFire(kept)).toBe('2026-06-01T10:30:00.000Z');

    await sql('DELETE FROM jobs WHERE id = $1', [gone]);
    await service.local.sync();
    expect(fullVersionReads()).toBe(1);
    expect(nextFire(gone)).toBeUndefined();
    expect(nextFire(kept)).toBe('2026-06-01T10:30:00.000Z');
  });

  it("counts a job created while a reload reads the versions as that reload's, not as a deletion", async () => {
    await create('before');
    await service.local.sync();
    await create('asks-for-a-reload');
    // The creation lands (committed and told) after the reload's read, before its answer is used.
    let during: number | undefined;
    queries.mockRestore();
    const query = service.db.pool.query.bind(service.db.pool) as (...args: unknown[]) => Promise<unknown>;
    queries = jest.spyOn(service.db.pool, 'query').mockImplementation((async (...args: unknown[]) => {
      const answer = await query(...args);
      const name = (args[0] as QueryConfig).name;
      if (name === 'crondeck_list_jobs_written_since' && during === undefined)
        during = await create('during');
      return answer;
    }) as never);
    await service.local.sync();
    expect(during).toBeDefined();
    await service.local.sync();
    expect(fullVersionReads()).toBe(0);
    expect(nextFire(during!)).toBe('2026-06-01T11:00:00.000Z');
  });

  itOnServer('takes a write that commits after a reload it began before', async () => {
    const [early, late] = [await create('early'), await create('late')];
    await service.local.sync();
    const other = await service.db.pool.connect();
    try {
      // A transaction older than the next reload's read, committed after it.
      await other.query('BEGIN');
      await other.query(`UPDATE jobs SET schedule = '30 * * * *' WHERE id = $1`, [early]);
      await sql(`UPDATE jobs SET schedule = '45 * * * *' WHERE id = $1`, [late]);
      await service.local.sync();
      expect(nextFire(late)).toBe('2026-06-01T10:45:00.000Z');
      expect(nextFire(early)).toBe('2026-06-01T11:00:00.000Z');
      await other.query('COMMIT');
    } finally {
      other.release();
    }
    await service.local.sync();
    expect(nextFire(early)).toBe('2026-06-01T10:30:00.000Z');
  });
});
