import { startTestService, type TestService } from '../support/service';

const valid = { name: 'backup', schedule: '0 2 * * *', command: 'echo backup' };

describe('jobs API', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ local: { execute: undefined } });
  });
  afterAll(async () => {
    await service.stop();
  });
  beforeEach(async () => {
    await service.db.pool.query('DELETE FROM jobs');
  });

  const jobCount = async () =>
    Number((await service.db.pool.query('SELECT count(*) AS n FROM jobs')).rows[0].n);

  it('creates a job with defaults and the documented response fields', async () => {
    const created = await service.request('POST', '/api/jobs', valid);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'backup',
      schedule: '0 2 * * *',
      command: 'echo backup',
      timeout: 0,
      retry: null,
      description: null,
      tags: [],
      timezone: null,
      enabled: true,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: expect.any(String),
      nextRun: expect.stringMatching(/T02:00:00\.000Z$/),
      lastRun: null,
      lastStatus: null,
      running: null,
      suspendedReason: null,
      suspendedAt: null,
      // The slot ledger's fields (docs/slots.md), at their defaults.
      lateAfterSeconds: 60,
      catchUp: { policy: 'none', maxRuns: 10, withinSeconds: 3600 },
      allowDuplicateSlots: false,
      lastSlot: null,
      // Kubernetes mode's (docs/api.md): no namespace locally, no one named without SERVICE_AUTH=kubernetes.
      namespace: null,
      changedBy: null,
    });
  });

  it('lists, reads, replaces, toggles and deletes', async () => {
    const { body: job } = await service.request('POST', '/api/jobs', {
      ...valid,
      timeout: 60,
      retry: { maxAttempts: 2, baseDelay: 5 },
      description: 'nightly',
      tags: ['ops'],
      timezone: 'Europe/Berlin',
    });
    expect((await service.request('GET', '/api/jobs')).body).toEqual([job]);
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body).toEqual(job);

    const replaced = await service.request('PUT', `/api/jobs/${job.id}`, {
      ...valid,
      name: 'backup-2',
      schedule: '@hourly',
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      id: job.id,
      name: 'backup-2',
      schedule: '@hourly',
      timeout: 0,
      tags: [],
      timezone: null,
    });

    // A job read back and sent again as it is (with its read-only fields) is accepted.
    const roundTrip = await service.request('PUT', `/api/jobs/${job.id}`, replaced.body);
    expect(roundTrip.status).toBe(200);

    const toggled = await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: false });
    expect(toggled.body).toMatchObject({ enabled: false, nextRun: null });

    const deleted = await service.request('DELETE', `/api/jobs/${job.id}`);
    expect(deleted.body).toEqual({ ok: true, id: job.id });
    expect((await service.request('GET', `/api/jobs/${job.id}`)).status).toBe(404);
  });

  it('runs a job at once and returns before it finishes', async () => {
    const { body: job } = await service.request('POST', '/api/jobs', {
      ...valid,
      command: 'sleep 0.3; echo done',
    });
    const started = Date.now();
    const run = await service.request('POST', `/api/jobs/${job.id}/run`);
    expect(Date.now() - started).toBeLessThan(300);
    expect(run.body).toEqual({ message: 'Job "backup" triggered', jobId: job.id });
    await service.local.idle();
    const [execution] = (await service.request('GET', `/api/executions?jobId=${job.id}`)).body;
    expect(execution).toMatchObject({ status: 'success', exitCode: 0, attempt: 0, jobName: 'backup' });
    const detail = (await service.request('GET', `/api/executions/${execution.id}`)).body;
    expect(detail.stdout).toBe('done\n');
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body).toMatchObject({
      lastStatus: 'success',
    });
  });

  it('answers 409 for a duplicate name, on create and on rename', async () => {
    await service.request('POST', '/api/jobs', valid);
    const duplicate = await service.request('POST', '/api/jobs', valid);
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ error: 'a job named "backup" already exists' });
    const { body: other } = await service.request('POST', '/api/jobs', { ...valid, name: 'other' });
    const rename = await service.request('PUT', `/api/jobs/${other.id}`, valid);
    expect(rename.status).toBe(409);
    expect(await jobCount()).toBe(2);
  });

  // A refused write makes the pool replace its connection; the lists that follow use prepared
  // statements, which must not collide with what the previous connection prepared (the embedded
  // database keeps one backend session for every connection).
  it('keeps answering the lists after a refused write, however they interleave', async () => {
    await service.request('POST', '/api/jobs', valid);
    for (let round = 0; round < 5; round++) {
      const statuses = (
        await Promise.all([
          service.request('GET', '/api/jobs'),
          service.request('POST', '/api/jobs', valid),
          service.request('GET', '/api/jobs'),
          service.request('GET', '/api/executions'),
        ])
      ).map((response) => response.status);
      expect(statuses).toEqual([200, 409, 200, 200]);
    }
  });

  describe('rejects bad input with a 400 naming the field, and writes nothing', () => {
    const cases: [string, unknown, string][] = [
      ['name missing', { schedule: '* * * * *', command: 'x' }, 'name: '],
      ['name empty', { ...valid, name: '' }, 'name: must not be empty'],
      ['name too long', { ...valid, name: 'a'.repeat(201) }, 'name: must be at most 200 characters'],
      [
        'name with bad characters',
        { ...valid, name: 'no spaces' },
        'name: must start with a letter or digit',
      ],
      ['name starting with a dot', { ...valid, name: '.hidden' }, 'name: must start with a letter or digit'],
      ['name not a string', { ...valid, name: 42 }, 'name: '],
      ['schedule missing', { name: 'x', command: 'x' }, 'schedule: '],
      [
        'schedule out of range',
        { ...valid, schedule: '61 * * * *' },
        'schedule: minute value 61 is out of range 0-59',
      ],
      [
        'schedule with 3 fields',
        { ...valid, schedule: '* * *' },
        'schedule: cron expression must have 5 fields',
      ],
      ['schedule garbage', { ...valid, schedule: 'every day' }, 'schedule: '],
      ['command missing', { name: 'x', schedule: '* * * * *' }, 'command: '],
      ['command empty', { ...valid, command: '' }, 'command: must not be empty'],
      [
        'time zone unknown',
        { ...valid, timezone: 'Mars/Olympus' },
        'timezone: must be an IANA time zone name',
      ],
      ['time zone not a string', { ...valid, timezone: 5 }, 'timezone: '],
      ['timeout negative', { ...valid, timeout: -1 }, 'timeout: must be at least 0'],
      ['timeout a string', { ...valid, timeout: '10' }, 'timeout: must be a number of seconds'],
      ['timeout above a day', { ...valid, timeout: 86401 }, 'timeout: must be at most 86400'],
      ['timeout fractional', { ...valid, timeout: 1.5 }, 'timeout: must be a whole number of seconds'],
      ['retry not an object', { ...valid, retry: 3 }, 'retry: must be an object'],
      ['retry missing a key', { ...valid, retry: { maxAttempts: 2 } }, 'retry.baseDelay: '],
      [
        'retry with an extra key',
        { ...valid, retry: { maxAttempts: 2, baseDelay: 1, jitter: true } },
        'retry',
      ],
      [
        'retry attempts negative',
        { ...valid, retry: { maxAttempts: -1, baseDelay: 1 } },
        'retry.maxAttempts: ',
      ],
      ['tags not an array', { ...valid, tags: 'ops' }, 'tags: must be an array of strings'],
      ['tags with a number', { ...valid, tags: ['ops', 1] }, 'tags.1: must be a string'],
      ['description not a string', { ...valid, description: {} }, 'description: must be a string'],
      ['an unknown field', { ...valid, schedul: '* * * * *' }, 'schedul: is not a job field'],
      ['a body that is an array', [valid], 'request body must be a JSON object'],
    ];
    it.each(cases)('%s', async (_label, body, message) => {
      const response = await service.request('POST', '/api/jobs', body);
      expect(response.status).toBe(400);
      expect(response.body.error).toContain(message);
      expect(await jobCount()).toBe(0);
    });

    it('on replace too, leaving the job as it was', async () => {
      const { body: job } = await service.request('POST', '/api/jobs', valid);
      const response = await service.request('PUT', `/api/jobs/${job.id}`, { ...valid, timeout: -5 });
      expect(response.status).toBe(400);
      expect((await service.request('GET', `/api/jobs/${job.id}`)).body).toEqual(job);
    });
  });

  it('answers 400 for a body that is not JSON and for no body', async () => {
    const notJson = await service.request('POST', '/api/jobs', '{"name": ', {
      'content-type': 'application/json',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual({ error: 'request body is not valid JSON' });
    const noBody = await service.request('POST', '/api/jobs');
    expect(noBody.status).toBe(400);
    expect(noBody.body.error).toContain('request body must be a JSON object');
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const response = await service.request('POST', '/api/jobs', {
      ...valid,
      command: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(response.status).toBe(413);
    expect(response.body.error).toContain('larger than the limit');
    expect(await jobCount()).toBe(0);
  });

  it.each([
    ['GET', ''],
    ['PUT', ''],
    ['DELETE', ''],
    ['PATCH', '/toggle'],
    ['POST', '/run'],
  ])('answers %s on a non-integer id with 400 and on an unknown one with 404', async (method, suffix) => {
    const body = method === 'PUT' ? valid : method === 'PATCH' ? { enabled: true } : undefined;
    for (const bad of ['abc', '1.5', '-1', '0', '99999999999']) {
      const response = await service.request(method, `/api/jobs/${bad}${suffix}`, body);
      expect([response.status, response.body]).toEqual([400, { error: 'id: must be a positive integer' }]);
    }
    const missing = await service.request(method, `/api/jobs/4242${suffix}`, body);
    expect([missing.status, missing.body]).toEqual([404, { error: 'job 4242 not found' }]);
  });

  it('validates the toggle body', async () => {
    const { body: job } = await service.request('POST', '/api/jobs', valid);
    for (const body of [{}, { enabled: 'yes' }, { enabled: true, extra: 1 }, []]) {
      const response = await service.request('PATCH', `/api/jobs/${job.id}/toggle`, body);
      expect(response.status).toBe(400);
    }
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body.enabled).toBe(true);
  });

  // From a page on this machine: without a token, pages elsewhere are refused (crossSiteRequests.test.ts).
  it('answers CORS requests', async () => {
    const response = await fetch(`${service.url}/api/jobs`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const get = await service.request('GET', '/health', undefined, { Origin: 'http://localhost:5173' });
    expect(get.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers an unknown API path with a JSON 404', async () => {
    const response = await service.request('GET', '/api/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body.error).toContain('no such endpoint');
  });

  it('answers JSON outside /api too: another method on /metrics or /health, a page that does not exist', async () => {
    for (const [method, path] of [
      ['POST', '/metrics'],
      ['POST', '/health'],
      ['GET', '/nothing-here'],
    ] as const) {
      const response = await service.request(method, path);
      expect([method, path, response.status, response.headers.get('content-type')]).toEqual([
        method,
        path,
        404,
        'application/json; charset=utf-8',
      ]);
      expect(response.body).toEqual({ error: `no such endpoint: ${method} ${path}` });
    }
  });
});
