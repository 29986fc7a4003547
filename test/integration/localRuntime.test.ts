import { ManualClock } from '../support/clock';
import { ControlledAttempts } from '../support/attempts';
import { eventually, startTestService, type TestService } from '../support/service';

/** Scheduler behaviour with a hand-moved clock and attempts that finish on command. */
describe('local runtime', () => {
  let service: TestService;
  let clock: ManualClock;
  let attempts: ControlledAttempts;
  let waits: number[];

  beforeEach(async () => {
    clock = new ManualClock('2026-06-01T10:00:30Z');
    attempts = new ControlledAttempts();
    waits = [];
    const sleep = async (ms: number) => void waits.push(ms);
    service = await startTestService({ clock, local: { execute: attempts.run, sleep } });
  });
  afterEach(async () => {
    while (attempts.pending.length > 0) attempts.finishNext();
    await service.stop();
  });

  async function createJob(body: Record<string, unknown>) {
    const response = await service.request('POST', '/api/jobs', { command: 'true', ...body });
    expect(response.status).toBe(201);
    return response.body as { id: number; nextRun: string };
  }

  const executions = async (jobId: number) =>
    (await service.request('GET', `/api/executions?jobId=${jobId}`)).body as {
      status: string;
      attempt: number;
    }[];

  it('fires a job at its cron time and records the attempt', async () => {
    const job = await createJob({ name: 'every-minute', schedule: '* * * * *' });
    expect(job.nextRun).toBe('2026-06-01T10:01:00.000Z');
    service.local.tick(clock.set('2026-06-01T10:00:59Z'));
    expect(attempts.started).toHaveLength(0);
    service.local.tick(clock.set('2026-06-01T10:01:00Z'));
    await attempts.waitForStarted(1);
    expect(attempts.started).toEqual([{ jobName: 'every-minute', attempt: 0 }]);
    attempts.finishNext({ stdout: 'done\n' });
    await service.local.idle();
    expect(await executions(job.id)).toMatchObject([{ status: 'success', attempt: 0 }]);
    expect(service.local.nextFireTimes().get(job.id)?.toISOString()).toBe('2026-06-01T10:02:00.000Z');
  });

  it('records a fire time that comes while the previous run is active as skipped', async () => {
    const job = await createJob({ name: 'slow', schedule: '* * * * *' });
    service.local.tick(clock.set('2026-06-01T10:01:00Z'));
    service.local.tick(clock.set('2026-06-01T10:02:00Z'));
    service.local.tick(clock.set('2026-06-01T10:03:00Z'));
    await attempts.waitForStarted(1);
    expect(attempts.started).toHaveLength(1);
    await eventually(
      async () => (await executions(job.id)).filter((e) => e.status === 'skipped').length === 2,
    );
    attempts.finishNext();
    await service.local.idle();
    const statuses = (await executions(job.id)).map((e) => e.status).sort();
    expect(statuses).toEqual(['skipped', 'skipped', 'success']);
    const skipped = (await service.request('GET', `/api/executions?jobId=${job.id}&status=skipped&limit=1`))
      .body[0];
    const detail = (await service.request('GET', `/api/executions/${skipped.id}`)).body;
    expect(detail.stderr).toContain('previous run of this job was still in progress');
  });

  it('does not replay fire times missed while the service was not looking', async () => {
    const job = await createJob({ name: 'missed', schedule: '* * * * *' });
    // Thirty fire times have passed: it fires once, and next at the first one after now.
    await service.local.tick(clock.set('2026-06-01T10:30:10Z'));
    expect(attempts.started).toHaveLength(1);
    attempts.finishNext();
    await service.local.idle();
    expect(service.local.nextFireTimes().get(job.id)?.toISOString()).toBe('2026-06-01T10:31:00.000Z');
    // `tick` resolves once what it launched is running: a replayed fire time would show here.
    await service.local.tick(clock.set('2026-06-01T10:30:50Z'));
    expect(attempts.started).toHaveLength(1);
    expect(await executions(job.id)).toHaveLength(1);
  });

  it('keeps the next scheduled run when a job is run by hand', async () => {
    const job = await createJob({ name: 'manual', schedule: '0 * * * *' });
    const run = await service.request('POST', `/api/jobs/${job.id}/run`);
    expect(run.body).toEqual({ message: 'Job "manual" triggered', jobId: job.id });
    await attempts.waitForStarted(1);
    attempts.finishNext();
    await service.local.idle();
    service.local.tick(clock.set('2026-06-01T11:00:00Z'));
    await attempts.waitForStarted(2);
  });

  it('shows a run in progress on its job, in the list and as an execution', async () => {
    const job = await createJob({ name: 'visible', schedule: '0 0 1 1 *' });
    const listed = async () =>
      ((await service.request('GET', '/api/jobs')).body as { id: number; running: unknown }[]).find(
        (j) => j.id === job.id,
      )!.running;
    // The rendered list is cached now: the run starting must make it stale.
    expect(await listed()).toBeNull();
    await service.request('POST', `/api/jobs/${job.id}/run`);
    await attempts.waitForStarted(1);
    const running = (await eventually(async () => listed())) as { executionId: number };
    expect(running).toEqual({ executionId: expect.any(Number), startedAt: expect.any(String), attempt: 0 });
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body.running).toEqual(running);
    const detail = await service.request('GET', `/api/executions/${running.executionId}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({
      id: running.executionId,
      jobId: job.id,
      jobName: 'visible',
      status: 'running',
      startedAt: (running as unknown as { startedAt: string }).startedAt,
      finishedAt: null,
      durationMs: null,
      exitCode: null,
      attempt: 0,
      reason: null,
      reasonMessage: null,
      // A run by hand is for no slot.
      scheduledAt: null,
      trigger: null,
      triggeredBy: null,
      stdout: '',
      stderr: '',
    });
    // Listed to those who ask for attempts in progress; the default list holds finished ones only.
    expect(await executions(job.id)).toEqual([]);
    const inProgress = await service.request('GET', `/api/executions?jobId=${job.id}&status=running`);
    expect(inProgress.body).toMatchObject([{ id: running.executionId, status: 'running' }]);
    attempts.finishNext();
    await service.local.idle();
    expect(await listed()).toBeNull();
    expect(await executions(job.id)).toMatchObject([{ id: running.executionId, status: 'success' }]);
  });

  it('refuses a second run by hand while a run of the job is going, retries included', async () => {
    const job = await createJob({
      name: 'once-at-a-time',
      schedule: '0 0 1 1 *',
      retry: { maxAttempts: 1, baseDelay: 0 },
    });
    expect((await service.request('POST', `/api/jobs/${job.id}/run`)).status).toBe(200);
    await attempts.waitForStarted(1);
    const second = await service.request('POST', `/api/jobs/${job.id}/run`);
    expect(second.status).toBe(409);
    expect(second.body).toEqual({
      error: 'job "once-at-a-time" is already running; wait for its run to finish',
    });
    attempts.finishNext({ status: 'failed', exitCode: 1 });
    await attempts.waitForStarted(2);
    expect((await service.request('POST', `/api/jobs/${job.id}/run`)).status).toBe(409);
    attempts.finishNext();
    await service.local.idle();
    expect(attempts.started).toHaveLength(2);
    expect((await service.request('POST', `/api/jobs/${job.id}/run`)).status).toBe(200);
    await attempts.waitForStarted(3);
  });

  it('retries a failed attempt with exponential backoff', async () => {
    const job = await createJob({
      name: 'flaky',
      schedule: '0 0 1 1 *',
      retry: { maxAttempts: 2, baseDelay: 3 },
    });
    await service.request('POST', `/api/jobs/${job.id}/run`);
    await attempts.waitForStarted(1);
    attempts.finishNext({ status: 'failed', exitCode: 1 });
    await attempts.waitForStarted(2);
    attempts.finishNext({ status: 'failed', exitCode: 1 });
    await attempts.waitForStarted(3);
    attempts.finishNext({ status: 'success' });
    await service.local.idle();
    expect((await executions(job.id)).map((e) => [e.attempt, e.status])).toEqual([
      [2, 'success'],
      [1, 'failed'],
      [0, 'failed'],
    ]);
    expect(waits).toEqual([3000, 6000]);
  });

  it('does not retry a timeout', async () => {
    const job = await createJob({
      name: 'stuck',
      schedule: '0 0 1 1 *',
      retry: { maxAttempts: 3, baseDelay: 0 },
    });
    await service.request('POST', `/api/jobs/${job.id}/run`);
    await attempts.waitForStarted(1);
    attempts.finishNext({ status: 'timeout', exitCode: 143 });
    await service.local.idle();
    expect((await executions(job.id)).map((e) => e.status)).toEqual(['timeout']);
  });

  const storedSchedulerState = async () =>
    (await service.db.pool.query('SELECT paused, paused_until AS until FROM scheduler_state')).rows[0];

  it('does not fire while paused, and resumes by itself when `until` passes', async () => {
    const job = await createJob({ name: 'paused', schedule: '* * * * *' });
    const pause = await service.request('POST', '/api/scheduler/pause', { until: '2026-06-01T10:05:00Z' });
    expect(pause.body).toEqual({ paused: true, until: '2026-06-01T10:05:00.000Z' });
    // `tick` resolves once what it launched is running: a fire time taken despite the pause shows.
    await service.local.tick(clock.set('2026-06-01T10:01:00Z'));
    await service.local.tick(clock.set('2026-06-01T10:04:00Z'));
    expect(attempts.started).toHaveLength(0);
    expect(await executions(job.id)).toEqual([]);
    expect((await service.request('GET', '/api/scheduler/status')).body.paused).toBe(true);
    await service.local.tick(clock.set('2026-06-01T10:05:00Z'));
    expect(attempts.started).toHaveLength(1);
    // Cleared where every replica reads it, without anyone asking for the status first.
    expect(await storedSchedulerState()).toEqual({ paused: false, until: null });
    expect((await service.request('GET', '/api/scheduler/status')).body).toEqual({
      paused: false,
      until: null,
    });
  });

  it('ends a pause at its `until` after a restart too', async () => {
    await service.request('POST', '/api/scheduler/pause', { until: '2026-06-01T10:05:00Z' });
    await service.runtime.stop();
    const restarted = await startTestService({ clock, db: service.db });
    try {
      await restarted.local.tick(clock.set('2026-06-01T10:05:00Z'));
      expect(await storedSchedulerState()).toEqual({ paused: false, until: null });
    } finally {
      await restarted.stop();
    }
  });

  it('arms its timer for the end of a pause when it starts', async () => {
    await service.request('POST', '/api/scheduler/pause', { until: '2026-06-01T10:05:00Z' });
    await service.runtime.stop();
    clock.set('2026-06-01T10:05:00Z');
    // Real timers this time: nothing fires and nothing is due but the end of the pause.
    const restarted = await startTestService({ clock, db: service.db, local: { autoTick: true } });
    try {
      await eventually(async () => !(await storedSchedulerState()).paused);
      expect(await storedSchedulerState()).toEqual({ paused: false, until: null });
    } finally {
      await restarted.stop();
    }
  });

  it('brings its timer forward for a job created to fire before the one it waits for', async () => {
    await service.runtime.stop();
    // Real timers: the timer is set for the hourly job, then for the job that fires sooner.
    const restarted = await startTestService({
      clock,
      db: service.db,
      local: { autoTick: true, execute: attempts.run },
    });
    const create = async (name: string, schedule: string) =>
      (await restarted.request('POST', '/api/jobs', { name, schedule, command: 'true' })).body as {
        nextRun: string;
      };
    try {
      expect((await create('hourly', '0 * * * *')).nextRun).toBe('2026-06-01T11:00:00.000Z');
      clock.set('2026-06-01T10:00:59.800Z');
      expect((await create('soon', '* * * * *')).nextRun).toBe('2026-06-01T10:01:00.000Z');
      clock.set('2026-06-01T10:01:00Z');
      await attempts.waitForStarted(1);
      expect(attempts.started).toEqual([{ jobName: 'soon', attempt: 0 }]);
    } finally {
      await restarted.stop();
    }
  });

  it('applies edits, disabling and deletion without a restart', async () => {
    const job = await createJob({ name: 'editable', schedule: '0 * * * *' });
    await service.request('PUT', `/api/jobs/${job.id}`, {
      name: 'editable',
      schedule: '*/5 * * * *',
      command: 'true',
    });
    expect(service.local.nextFireTimes().get(job.id)?.toISOString()).toBe('2026-06-01T10:05:00.000Z');
    await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: false });
    expect(service.local.nextFireTimes().has(job.id)).toBe(false);
    await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: true });
    expect(service.local.nextFireTimes().has(job.id)).toBe(true);
    await service.request('DELETE', `/api/jobs/${job.id}`);
    expect(service.local.nextFireTimes().has(job.id)).toBe(false);
  });

  it('fires in the job time zone across a daylight-saving jump', async () => {
    const job = await createJob({ name: 'dst', schedule: '30 2 * * *', timezone: 'America/New_York' });
    clock.set('2026-03-07T12:00:00Z');
    await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: false });
    await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: true });
    // 02:30 does not exist on 2026-03-08 in New York: it fires once, at 03:00 EDT.
    expect(service.local.nextFireTimes().get(job.id)?.toISOString()).toBe('2026-03-08T07:00:00.000Z');
    service.local.tick(clock.set('2026-03-08T07:00:00Z'));
    await attempts.waitForStarted(1);
    attempts.finishNext();
    await service.local.idle();
    expect(service.local.nextFireTimes().get(job.id)?.toISOString()).toBe('2026-03-09T06:30:00.000Z');
  });

  it('records runs still going at shutdown as failed after the grace period', async () => {
    const job = await createJob({ name: 'long', schedule: '0 0 1 1 *' });
    await service.request('POST', `/api/jobs/${job.id}/run`);
    await attempts.waitForStarted(1);
    await service.runtime.stop();
    const [execution] = await executions(job.id);
    expect(execution).toMatchObject({ status: 'failed', exitCode: 143 });
  });

  it('closes a run left running by a crash as failed at the next start', async () => {
    const job = await createJob({ name: 'crashed', schedule: '0 0 1 1 *' });
    await service.db.pool.query(
      `INSERT INTO executions (job_id, job_name, status, started_at, attempt) VALUES ($1, 'crashed', 'running', $2, 0)`,
      [job.id, clock.now()],
    );
    const inProgress = await service.request('GET', `/api/executions?jobId=${job.id}&status=running`);
    expect(inProgress.body).toMatchObject([{ status: 'running' }]);
    // The first process is gone, as after a crash: on a server, the next one then leads.
    await service.runtime.stop();
    const restarted = await startTestService({ clock, db: service.db });
    try {
      const [execution] = (await restarted.request('GET', `/api/executions?jobId=${job.id}`)).body;
      expect(execution).toMatchObject({ status: 'failed', exitCode: -1 });
      const metrics = (await restarted.request('GET', '/metrics')).text;
      expect(metrics).toContain('service_executions_total{status="failed"} 1');
    } finally {
      await restarted.stop();
    }
  });
});
