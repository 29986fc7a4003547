import { LEADER_LOCK_KEY } from '../../src/runtime/local/leadership';
import type { Database } from '../../src/store/database';
import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { createTestDatabase, onPostgresServer } from '../support/database';
import { eventually, startTestService, type TestService } from '../support/service';

/**
 * Two `serve` processes on one database: one leads and fires jobs, the other serves the API only,
 * hands its changes on through the database, and takes over when the leader's connection drops.
 * On the embedded database only one process can run, and it leads.
 */
describe('two services on one database', () => {
  let db: Database;
  let clock: ManualClock;
  let attemptsA: ControlledAttempts;
  let attemptsB: ControlledAttempts;
  let a: TestService;
  let b: TestService;

  beforeEach(async () => {
    db = await createTestDatabase();
    clock = new ManualClock('2026-06-01T10:00:30Z');
    attemptsA = new ControlledAttempts();
    attemptsB = new ControlledAttempts();
    // No background syncing: the test says when the leader looks for the follower's writes.
    a = await startTestService({ db, clock, local: { execute: attemptsA.run, syncIntervalMs: null } });
    b = await startTestService({ db, clock, local: { execute: attemptsB.run, syncIntervalMs: null } });
  });
  afterEach(async () => {
    for (const attempts of [attemptsA, attemptsB]) while (attempts.pending.length > 0) attempts.finishNext();
    await a.stop();
    await b.stop();
    await db.close();
  });

  it('fires each job from the leader only, with changes made through the other', async () => {
    if (!onPostgresServer) {
      // The embedded database serves one process (its data directory is locked): it leads.
      expect(db.openSession).toBeUndefined();
      expect(a.local.isLeading()).toBe(true);
      return;
    }
    expect([a.local.isLeading(), b.local.isLeading()]).toEqual([true, false]);

    const job = (
      await b.request('POST', '/api/jobs', { name: 'once', schedule: '* * * * *', command: 'true' })
    ).body;
    await a.local.sync();
    expect(a.local.nextFireTimes().get(job.id)?.toISOString()).toBe('2026-06-01T10:01:00.000Z');
    expect(b.local.nextFireTimes().size).toBe(0);
    clock.set('2026-06-01T10:01:00Z');
    await Promise.all([a.local.tick(), b.local.tick()]);
    expect([attemptsA.started.length, attemptsB.started.length]).toEqual([1, 0]);
    attemptsA.finishNext();
    await a.local.idle();

    // A pause through the follower reaches the leader (the run's own writes are taken in first).
    await a.local.sync();
    await b.request('POST', '/api/scheduler/pause');
    await a.local.sync();
    await Promise.all([a.local.tick(clock.set('2026-06-01T10:02:00Z')), b.local.tick()]);
    expect([attemptsA.started.length, attemptsB.started.length]).toEqual([1, 0]);
    await b.request('POST', '/api/scheduler/resume');

    // So does a run by hand, and a deletion.
    expect((await b.request('POST', `/api/jobs/${job.id}/run`)).status).toBe(200);
    await a.local.sync();
    await attemptsA.waitForStarted(2);
    await b.request('DELETE', `/api/jobs/${job.id}`);
    await a.local.sync();
    expect(a.local.nextFireTimes().has(job.id)).toBe(false);
    // The run of the deleted job was stopped (an attempt left running would keep this waiting).
    await a.local.idle();
    expect(attemptsB.started).toEqual([]);
  });

  it('hands leadership over when the leader’s connection drops', async () => {
    if (!onPostgresServer) return;
    const job = (
      await a.request('POST', '/api/jobs', { name: 'handed', schedule: '* * * * *', command: 'true' })
    ).body;
    const { rowCount } = await db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = $1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [LEADER_LOCK_KEY],
    );
    expect(rowCount).toBe(1);
    await eventually(async () => b.local.isLeading());
    // Leading comes first, then the jobs are loaded: `sync` waits for the takeover.
    await b.local.sync();
    expect(a.local.isLeading()).toBe(false);
    expect(b.local.nextFireTimes().has(job.id)).toBe(true);
    clock.set('2026-06-01T10:01:00Z');
    await Promise.all([a.local.tick(), b.local.tick()]);
    expect([attemptsA.started.length, attemptsB.started.length]).toEqual([0, 1]);
  });

  it('leaves the leader’s runs alone when another process starts beside it', async () => {
    if (!onPostgresServer) return;
    const job = (await a.request('POST', '/api/jobs', { name: 'long', schedule: '@daily', command: 'true' }))
      .body;
    await a.request('POST', `/api/jobs/${job.id}/run`);
    await attemptsA.waitForStarted(1);
    const third = await startTestService({ db, clock, local: { syncIntervalMs: null } });
    await third.stop();
    attemptsA.finishNext({ stdout: 'finished here\n' });
    await a.local.idle();
    // Had the newcomer closed the running row as interrupted, the run's own result would be lost.
    expect((await a.request('GET', `/api/executions?jobId=${job.id}`)).body).toMatchObject([
      { status: 'success', exitCode: 0 },
    ]);
  });

  it('shows on one replica the writes made through the other (no stale cached list)', async () => {
    // Both lists are cached per replica; each is rendered again when another replica's write
    // changes the list's version in the database.
    expect((await a.request('GET', '/api/jobs')).body).toEqual([]);
    expect((await a.request('GET', '/api/executions')).body).toEqual([]);
    const job = (await b.request('POST', '/api/jobs', { name: 'seen', schedule: '@daily', command: 'true' }))
      .body;
    expect((await a.request('GET', '/api/jobs')).body.map((j: { id: number }) => j.id)).toEqual([job.id]);
    await b.recorder.recordFinished(
      { ...job, createdAt: new Date(job.createdAt), updatedAt: new Date(job.updatedAt) },
      {
        status: 'success',
        startedAt: clock.now(),
        finishedAt: clock.now(),
        exitCode: 0,
        stdout: '',
        stderr: '',
        attempt: 0,
      },
      true,
    );
    expect((await a.request('GET', '/api/executions')).body).toMatchObject([
      { jobId: job.id, status: 'success' },
    ]);
    await b.request('POST', '/api/scheduler/pause');
    expect((await a.request('GET', '/api/scheduler/status')).body).toEqual({ paused: true, until: null });
    expect((await a.request('GET', '/health')).body).toMatchObject({ paused: true });
  });
});
