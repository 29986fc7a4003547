import { countAppRequests, rawRequest } from '../support/frontDoor';
import { startTestService, type TestService } from '../support/service';

/**
 * `GET /api/executions` is answered in front of Express (http/frontDoor/executionList.ts) when it
 * can be. Whichever way a request goes, the client sees the same answer: status, headers in their
 * order, body. The app's own answer is had by asking with a trailing slash (`/api/executions/`),
 * a form Express routes to the same handler and the front door leaves to it.
 */

const get = (service: TestService, path: string, headers: Record<string, string> = {}, body?: string) =>
  rawRequest(service, 'GET', path, headers, body);

/** The app's answer to the same query: the path with a trailing slash. */
const viaApp = (service: TestService, query: string, headers: Record<string, string> = {}) =>
  get(service, `/api/executions/${query}`, headers);

async function seed(service: TestService): Promise<number> {
  const job = await service.request('POST', '/api/jobs', {
    name: 'history',
    schedule: '@daily',
    command: 'true',
  });
  const id = job.body.id as number;
  await service.db.pool.query(
    `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code)
     SELECT $1, 'history', s, t, CASE WHEN s = 'running' THEN NULL ELSE t END,
            CASE WHEN s = 'running' THEN NULL ELSE 5 END, CASE WHEN s = 'running' THEN NULL ELSE 0 END
       FROM unnest(ARRAY['success', 'failed', 'timeout', 'success', 'running']) WITH ORDINALITY AS r(s, n),
            LATERAL (SELECT timestamptz '2026-06-01T00:00:00Z' + n * interval '1 minute' AS t) times`,
    [id],
  );
  return id;
}

describe('GET /api/executions in front of the app', () => {
  let service: TestService;
  let jobId: number;
  beforeAll(async () => {
    service = await startTestService();
    jobId = await seed(service);
  });
  afterAll(async () => {
    await service.stop();
  });

  it('answers plain lists without the app, with the bytes and headers the app answers', async () => {
    const queries = [
      '',
      '?',
      '?limit=2',
      `?jobId=${jobId}&status=success`,
      '?status=running',
      '?status=failed&limit=1000',
      // Parameters the schema does not know are ignored by the route, so here too.
      '?limit=3&view=compact',
    ];
    for (const query of queries) {
      const app = countAppRequests(service);
      try {
        const fast = await get(service, `/api/executions${query}`);
        expect([query, app.count()]).toEqual([query, 0]);
        expect(fast.status).toBe(200);
        expect(fast).toEqual(await viaApp(service, query));
        expect(app.count()).toBe(1);
      } finally {
        app.restore();
      }
    }
    const page = JSON.parse((await get(service, '/api/executions?limit=2')).body) as { status: string }[];
    expect(page.map((e) => e.status)).toEqual(['success', 'timeout']);
    // A page on this machine: without a token, pages elsewhere are refused (crossSiteRequests.test.ts).
    const origin = { Origin: 'http://localhost:3000' };
    expect(await get(service, '/api/executions', origin)).toEqual(await viaApp(service, '', origin));
  });

  it('leaves every other case to the app, which answers it as before', async () => {
    const app = countAppRequests(service);
    try {
      const refused = [
        ['?limit=0', 'limit: must be a positive integer'],
        ['?limit=1001', 'limit: must be at most 1000'],
        ['?limit=1&limit=2', 'limit: may be given only once'],
        ['?status=queued', 'status: must be one of success, failed, timeout, skipped, running'],
        ['?jobId=abc', 'jobId'],
      ] as const;
      for (const [query, message] of refused) {
        const answer = await get(service, `/api/executions${query}`);
        expect([query, answer.status]).toEqual([query, 400]);
        expect((JSON.parse(answer.body) as { error: string }).error).toContain(message);
        expect(answer).toEqual(await viaApp(service, query));
      }
      const json = { 'Content-Type': 'application/json', 'Content-Length': '1' };
      const withBody = await get(service, '/api/executions', json, '{');
      expect([withBody.status, JSON.parse(withBody.body)]).toEqual([
        400,
        { error: 'request body is not valid JSON' },
      ]);
      const conditional = await get(service, '/api/executions', { 'If-None-Match': '*' });
      expect(conditional.status).toBe(304);
      // 5 refused queries and their app twins, the body, the conditional read.
      expect(app.count()).toBe(12);
    } finally {
      app.restore();
    }
  });

  it('reads a query string it read before as the route does, among more than it keeps', async () => {
    const queries = [
      ...Array.from({ length: 70 }, (_, i) => `?limit=${i + 1}`),
      '?limit=0',
      `?jobId=${jobId}&limit=2`,
      `?jobId=${jobId}&limit=20`,
    ];
    for (let round = 0; round < 2; round++) {
      for (const query of queries) {
        const fast = await get(service, `/api/executions${query}`);
        expect([query, fast]).toEqual([query, await viaApp(service, query)]);
      }
    }
  });

  it('shows an execution recorded after the last answer, whoever recorded it', async () => {
    const before = JSON.parse((await get(service, '/api/executions?limit=1')).body) as { id: number }[];
    const { rows } = await service.db.pool.query<{ id: string }>(
      `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code)
       VALUES ($1, 'history', 'skipped', '2026-06-02T00:00:00Z', '2026-06-02T00:00:01Z', 0, NULL)
       RETURNING id`,
      [jobId],
    );
    const after = JSON.parse((await get(service, '/api/executions?limit=1')).body) as { id: number }[];
    expect(after.map((e) => e.id)).toEqual([Number(rows[0]!.id)]);
    expect(after).not.toEqual(before);
  });
});

describe('GET /api/executions in front of the app, with an API token', () => {
  const token = 'front-door-token-of-the-test';
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { SERVICE_API_TOKEN: token } });
  });
  afterAll(async () => {
    await service.stop();
  });

  it('answers only with the right token; the app refuses the others as before', async () => {
    const app = countAppRequests(service);
    try {
      const bearer = { Authorization: `Bearer ${token}` };
      const right = await get(service, '/api/executions', bearer);
      expect([right.status, right.body]).toEqual([200, '[]']);
      expect(app.count()).toBe(0);
      expect(right).toEqual(await viaApp(service, '', bearer));

      const missing = await get(service, '/api/executions');
      expect(missing.status).toBe(401);
      const wrong = await get(service, '/api/executions', { Authorization: 'Bearer nope' });
      expect([wrong.status, JSON.parse(wrong.body)]).toEqual([401, { error: 'invalid API token' }]);
      expect(app.count()).toBe(3);
    } finally {
      app.restore();
    }
  });
});
