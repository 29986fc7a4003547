import { thisProcessIdentity } from '../../src/runner/processIdentity';
import type { Database } from '../../src/store/database';
import { requestRun } from '../../src/store/runRequests';
import { registerProcess } from '../../src/store/serviceProcesses';
import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import { eventually, startTestService, type TestService } from '../support/service';

/**
 * The job's one run request (store/runRequests.ts), as the leader keeps it: on PGlite and on a
 * server alike. Two replicas at once are in runNowAcrossReplicas.test.ts (a server only).
 */
describe('run requests on the leader', () => {
  let db: Database;
  let clock: ManualClock;
  let attempts: ControlledAttempts;
  let service: TestService | undefined;

  beforeEach(async () => {
    db = await createTestDatabase();
    clock = new ManualClock('2026-06-01T10:00:30Z');
    attempts = new ControlledAttempts();
  });
  afterEach(async () => {
    while (attempts.pending.length > 0) attempts.finishNext();
    await service?.stop();
    service = undefined;
    await db.close();
  });

  const boot = async () => {
    const sleep = async () => undefined;
    service = await startTestService({
      db,
      clock,
      local: { execute: attempts.run, sleep, syncIntervalMs: null },
    });
    return service;
  };
  const createJob = async (body: Record<string, unknown>) =>
    (await service!.request('POST', '/api/jobs', { command: 'true', ...body })).body as { id: number };
  const runNow = (jobId: number) => service!.request('POST', `/api/jobs/${jobId}/run`);
  const requestsOf = async (jobId: number) =>
    (await db.pool.query('SELECT taken_by FROM run_requests WHERE job_id = $1', [jobId])).rows;

  it('answers 200, 409, 409, and 200 again once the run has ended', async () => {
    await boot();
    const job = await createJob({ name: 'by-hand', schedule: '0 0 1 1 *' });
    const statuses = [];
    for (let n = 0; n < 3; n++) statuses.push((await runNow(job.id)).status);
    expect(statuses).toEqual([200, 409, 409]);
    await attempts.waitForStarted(1);
    attempts.finishNext();
    await service!.local.idle();
    expect(await requestsOf(job.id)).toEqual([]);
    expect((await runNow(job.id)).status).toBe(200);
    await attempts.waitForStarted(2);
  });

  it('keeps the job claimed in the database while a run of the schedule waits to retry', async () => {
    await boot();
    const job = await createJob({
      name: 'flaky',
      schedule: '* * * * *',
      retry: { maxAttempts: 1, baseDelay: 60 },
    });
    // The retry's wait is held open: the attempt after it starts only when the test says.
    let endWait!: () => void;
    const waited = new Promise<void>((resolve) => (endWait = resolve));
    await service!.stop();
    service = await startTestService({
      db,
      clock,
      local: { execute: attempts.run, sleep: () => waited, syncIntervalMs: null },
    });
    await service.local.tick(clock.set('2026-06-01T10:01:00Z'));
    await attempts.waitForStarted(1);
    attempts.finishNext({ status: 'failed', exitCode: 1 });
    // What another replica asks of the database while no attempt of the run is running.
    await eventually(async () => (await requestsOf(job.id)).length === 1);
    expect(await requestRun(db.pool, job.id, null)).toBeNull();
    expect((await runNow(job.id)).status).toBe(409);
    endWait();
    await attempts.waitForStarted(2);
    attempts.finishNext();
    await service.local.idle();
    expect(await requestsOf(job.id)).toEqual([]);
  });

  it('records a run all the same when its claim for the retry’s wait is refused', async () => {
    await boot();
    const job = await createJob({
      name: 'unclaimed',
      schedule: '* * * * *',
      retry: { maxAttempts: 1, baseDelay: 60 },
    });
    await service!.local.tick(clock.set('2026-06-01T10:01:00Z'));
    await attempts.waitForStarted(1);
    // This process's registration is gone (as if judged gone): its claim names no process there is.
    await db.pool.query('DELETE FROM service_processes');
    attempts.finishNext({ status: 'failed', exitCode: 1 });
    await attempts.waitForStarted(2);
    attempts.finishNext();
    await service!.local.idle();
    const executions = (await service!.request('GET', `/api/executions?jobId=${job.id}`)).body;
    expect(executions).toMatchObject([
      { status: 'success', attempt: 1 },
      { status: 'failed', attempt: 0 },
    ]);
    expect(
      service!.logger.lines.filter(
        (line) => line.msg === 'could not claim the job while its run waits to retry',
      ),
    ).toHaveLength(1);
    expect(await requestsOf(job.id)).toEqual([]);
  });

  it('starts a request that raced a run of the schedule after that run, never beside it', async () => {
    await boot();
    const job = await createJob({ name: 'raced', schedule: '* * * * *' });
    await service!.local.tick(clock.set('2026-06-01T10:01:00Z'));
    await attempts.waitForStarted(1);
    // A replica that checked before the scheduled attempt's row was written, and asked for a run.
    await db.pool.query('INSERT INTO run_requests (job_id) VALUES ($1)', [job.id]);
    await service!.local.sync();
    expect(attempts.started).toHaveLength(1);
    expect((await runNow(job.id)).status).toBe(409);
    attempts.finishNext();
    await attempts.waitForStarted(2);
    expect(attempts.pending).toHaveLength(1);
    attempts.finishNext();
    await service!.local.idle();
    expect(await requestsOf(job.id)).toEqual([]);
  });

  it('starts on taking the lead a request that no process took', async () => {
    const { rows } = await db.pool.query<{ id: number }>(
      `INSERT INTO jobs (name, schedule, command) VALUES ('asked-before', '0 0 1 1 *', 'true') RETURNING id`,
    );
    const jobId = rows[0]!.id;
    expect(await requestRun(db.pool, jobId, null)).not.toBeNull();
    await boot();
    await attempts.waitForStarted(1);
    attempts.finishNext();
    await service!.local.idle();
    expect(await requestsOf(jobId)).toEqual([]);
  });

  it('frees the job of a process that is gone with a run request it had taken', async () => {
    const { rows } = await db.pool.query<{ id: number }>(
      `INSERT INTO jobs (name, schedule, command) VALUES ('orphaned', '0 0 1 1 *', 'true') RETURNING id`,
    );
    const jobId = rows[0]!.id;
    // A process of this machine whose PID now runs another process: it is gone.
    const gone = await registerProcess(db.pool, { ...thisProcessIdentity(), startTicks: '1' });
    expect(await requestRun(db.pool, jobId, gone)).not.toBeNull();
    await boot();
    expect(await requestsOf(jobId)).toEqual([]);
    expect((await runNow(jobId)).status).toBe(200);
    await attempts.waitForStarted(1);
  });
});
