import type { JobInput } from '../../src/domain/job';
import { isUniqueViolation, type Database } from '../../src/store/database';
import { findJob, insertJob } from '../../src/store/jobs';
import {
  deleteJobForResource,
  findJobForResource,
  resourceOfJob,
  upsertJobForResource,
} from '../../src/store/resourceJobs';
import { createTestDatabase } from '../support/database';

const input = (overrides: Partial<JobInput> = {}): JobInput => ({
  name: 'backup',
  schedule: '0 3 * * *',
  command: 'pg_dump',
  timeout: 60,
  retry: { maxAttempts: 2, baseDelay: 5 },
  description: null,
  tags: ['nightly'],
  timezone: 'Europe/Berlin',
  enabled: true,
  lateAfterSeconds: 60,
  catchUp: null,
  allowDuplicateSlots: false,
  ...overrides,
});

describe('rows that mirror ScheduledJobs', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('keeps one row and one id per namespace and name; a resync that changes nothing keeps updatedAt', async () => {
    const ref = { namespace: 'team-a', name: 'backup', uid: 'uid-1' };
    const first = await upsertJobForResource(db.pool, ref, input(), null);
    expect(first.created).toBe(true);
    const again = await upsertJobForResource(db.pool, ref, input(), null);
    expect(again).toEqual({ job: first.job, created: false });
    const edited = await upsertJobForResource(
      db.pool,
      { ...ref, uid: 'uid-2' },
      input({ schedule: '0 4 * * *' }),
      null,
    );
    expect(edited.job.id).toBe(first.job.id);
    expect(edited.job.schedule).toBe('0 4 * * *');
    expect(edited.job.updatedAt.getTime()).toBeGreaterThanOrEqual(first.job.updatedAt.getTime());
    expect(await findJobForResource(db.pool, 'team-a', 'backup')).toEqual(edited.job);
    expect(await resourceOfJob(db.pool, first.job.id)).toEqual({ namespace: 'team-a', name: 'backup' });
  });

  it('never mirrors an older generation over a newer one, nor one generation twice', async () => {
    const ref = { namespace: 'team-g', name: 'report', uid: 'uid-g' };
    const first = await upsertJobForResource(
      db.pool,
      { ...ref, generation: 1 },
      input({ name: 'report' }),
      null,
    );
    // The API changes the row and the ScheduledJob together (generation 2)...
    await db.pool.query('UPDATE jobs SET command = $1 WHERE id = $2', ['pg_dump --changed', first.job.id]);
    // ...and a pass reconciling from a cache that still holds generation 1 keeps the change.
    const stale = await upsertJobForResource(
      db.pool,
      { ...ref, generation: 1 },
      input({ name: 'report' }),
      null,
    );
    expect(stale).toEqual({ job: expect.objectContaining({ command: 'pg_dump --changed' }), created: false });
    const current = await upsertJobForResource(
      db.pool,
      { ...ref, generation: 2 },
      input({ name: 'report', command: 'pg_dump --changed', enabled: false }),
      null,
    );
    expect(current.job).toMatchObject({ id: first.job.id, command: 'pg_dump --changed', enabled: false });
    // A ScheduledJob deleted and made again starts its generations anew.
    const recreated = await upsertJobForResource(
      db.pool,
      { ...ref, uid: 'uid-g2', generation: 1 },
      input({ name: 'report', command: 'pg_dump --again' }),
      null,
    );
    expect(recreated.job).toMatchObject({ id: first.job.id, command: 'pg_dump --again' });
  });

  it('lets the same name live in two namespaces only under different job names', async () => {
    const error = await upsertJobForResource(
      db.pool,
      { namespace: 'team-b', name: 'backup', uid: 'uid-3' },
      input(),
      null,
    ).catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
    const other = await upsertJobForResource(
      db.pool,
      { namespace: 'team-b', name: 'backup', uid: 'uid-3' },
      input({ name: 'team-b.backup' }),
      null,
    );
    expect(other.created).toBe(true);
  });

  it('adopts the row the REST API inserted before creating the resource', async () => {
    const apiRow = await insertJob(db.pool, input({ name: 'from-api' }));
    expect(await resourceOfJob(db.pool, apiRow.id)).toBeNull();
    const adopted = await upsertJobForResource(
      db.pool,
      { namespace: 'crondeck', name: 'from-api', uid: 'uid-4' },
      input({ name: 'from-api' }),
      apiRow.id,
    );
    expect(adopted).toMatchObject({ created: false, job: { id: apiRow.id } });
    // A second resource claiming the same id does not steal it: it gets a row of its own.
    const thief = await upsertJobForResource(
      db.pool,
      { namespace: 'other', name: 'thief', uid: 'uid-5' },
      input({ name: 'thief' }),
      apiRow.id,
    );
    expect(thief.created).toBe(true);
    expect(thief.job.id).not.toBe(apiRow.id);
    expect(await resourceOfJob(db.pool, apiRow.id)).toEqual({ namespace: 'crondeck', name: 'from-api' });
  });

  it('deletes the row of a deleted resource', async () => {
    const { job } = await upsertJobForResource(
      db.pool,
      { namespace: 'team-c', name: 'gone', uid: 'uid-6' },
      input({ name: 'gone' }),
      null,
    );
    expect(await deleteJobForResource(db.pool, 'team-c', 'gone')).toBe(job.id);
    expect(await findJob(db.pool, job.id)).toBeNull();
    expect(await deleteJobForResource(db.pool, 'team-c', 'gone')).toBeNull();
  });
});
