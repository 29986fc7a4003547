import type { Pool } from 'pg';
import { startTestService, type TestService } from '../support/service';

/** Inserts finished executions directly, so ordering and limits can be checked on known data. */
async function seedExecutions(pool: Pool, jobId: number, jobName: string, count: number, startMs: number) {
  await pool.query(
    `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, stdout, stderr, attempt)
     SELECT $1, $2, CASE WHEN i % 3 = 0 THEN 'failed' ELSE 'success' END,
            to_timestamp(($3::bigint + i * 1000) / 1000.0), to_timestamp(($3::bigint + i * 1000 + 250) / 1000.0),
            250, CASE WHEN i % 3 = 0 THEN 1 ELSE 0 END, 'out ' || i, 'err ' || i, 0
     FROM generate_series(1, $4::int) AS i`,
    [jobId, jobName, startMs, count],
  );
}

describe('executions API', () => {
  let service: TestService;
  let jobA: number;
  let jobB: number;

  beforeAll(async () => {
    service = await startTestService();
    jobA = (await service.request('POST', '/api/jobs', { name: 'a', schedule: '@daily', command: 'true' }))
      .body.id;
    jobB = (await service.request('POST', '/api/jobs', { name: 'b', schedule: '@daily', command: 'true' }))
      .body.id;
    await seedExecutions(service.db.pool, jobA, 'a', 60, Date.parse('2026-01-01T00:00:00Z'));
    await seedExecutions(service.db.pool, jobB, 'b', 10, Date.parse('2026-01-01T00:00:30.500Z'));
  });
  afterAll(async () => {
    await service.stop();
  });

  it('lists the newest 50 by default, newest first, without output', async () => {
    const { status, body } = await service.request('GET', '/api/executions');
    expect(status).toBe(200);
    expect(body).toHaveLength(50);
    const starts = body.map((e: { startedAt: string }) => Date.parse(e.startedAt));
    expect([...starts].sort((x, y) => y - x)).toEqual(starts);
    expect(body[0]).toEqual({
      id: expect.any(Number),
      jobId: jobA,
      jobName: 'a',
      status: 'failed',
      startedAt: '2026-01-01T00:01:00.000Z',
      finishedAt: '2026-01-01T00:01:00.250Z',
      durationMs: 250,
      exitCode: 1,
      attempt: 0,
      reason: null,
      reasonMessage: null,
      scheduledAt: null,
      trigger: null,
      // Who ran it by hand, with SERVICE_AUTH=kubernetes (docs/api.md): no one is named without it.
      triggeredBy: null,
    });
  });

  it('filters by job and status and honours limit', async () => {
    const onlyB = (await service.request('GET', `/api/executions?jobId=${jobB}&limit=100`)).body;
    expect(onlyB).toHaveLength(10);
    expect(onlyB.every((e: { jobId: number }) => e.jobId === jobB)).toBe(true);
    expect((await service.request('GET', '/api/executions?limit=3')).body).toHaveLength(3);
    const failed = (await service.request('GET', `/api/executions?jobId=${jobA}&status=failed&limit=1000`))
      .body;
    expect(failed).toHaveLength(20);
    expect((await service.request('GET', '/api/executions?jobId=999')).body).toEqual([]);
  });

  it('reads one execution with its full output', async () => {
    const [first] = (await service.request('GET', `/api/executions?jobId=${jobB}&limit=1`)).body;
    const { body } = await service.request('GET', `/api/executions/${first.id}`);
    expect(body).toEqual({ ...first, stdout: 'out 10', stderr: 'err 10' });
  });

  it.each([
    ['limit=0', 'limit: must be a positive integer'],
    ['limit=-5', 'limit: must be a positive integer'],
    ['limit=abc', 'limit: must be a positive integer'],
    ['limit=2.5', 'limit: must be a positive integer'],
    ['limit=1001', 'limit: must be at most 1000'],
    ['limit=1&limit=2', 'limit: may be given only once'],
    ['jobId=1&jobId=2', 'jobId: may be given only once'],
    ['jobId=x', 'jobId: must be a positive integer'],
    ['status=done', 'status: must be one of success, failed, timeout, skipped, running'],
  ])('rejects %s', async (query, message) => {
    const response = await service.request('GET', `/api/executions?${query}`);
    expect([response.status, response.body]).toEqual([400, { error: message }]);
  });

  it('answers 400 for a bad id and 404 for an unknown one', async () => {
    expect((await service.request('GET', '/api/executions/abc')).status).toBe(400);
    const missing = await service.request('GET', '/api/executions/123456');
    expect([missing.status, missing.body]).toEqual([404, { error: 'execution 123456 not found' }]);
  });

  it('counts the last 24 hours in stats', async () => {
    const { body } = await service.request('GET', '/api/stats');
    // The seeded history is from January; nothing ran in the last 24 hours.
    expect(body).toEqual({ totalJobs: 2, enabledJobs: 2, recentSuccesses: 0, recentFailures: 0 });
    const run = await service.request('POST', '/api/jobs', {
      name: 'fails',
      schedule: '@daily',
      command: 'exit 1',
    });
    await service.request('POST', `/api/jobs/${run.body.id}/run`);
    await service.local.idle();
    expect((await service.request('GET', '/api/stats')).body).toMatchObject({
      totalJobs: 3,
      recentFailures: 1,
    });
  });
});
