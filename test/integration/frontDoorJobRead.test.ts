import { countAppRequests, rawRequest } from '../support/frontDoor';
import { startTestService, type TestService } from '../support/service';

/**
 * `GET /api/jobs/:id` is answered in front of Express (http/frontDoor/jobRead.ts) when it can be.
 * Whichever way a request goes, the client sees the same answer: status, headers in their order,
 * body. The app's own answer is had by asking for the same job with a trailing slash, a form that
 * Express routes to the same handler and the fast path leaves to it.
 */

const get = (service: TestService, path: string, headers: Record<string, string> = {}, body?: string) =>
  rawRequest(service, 'GET', path, headers, body);

const job = { name: 'fast', schedule: '0 * * * *', command: 'echo fast' };

describe('GET /api/jobs/:id in front of the app', () => {
  let service: TestService;
  let id: number;
  beforeAll(async () => {
    service = await startTestService();
    id = (await service.request('POST', '/api/jobs', job)).body.id as number;
  });
  afterAll(async () => {
    await service.stop();
  });

  it('answers a plain read without the app, with the bytes and headers the app answers', async () => {
    const app = countAppRequests(service);
    try {
      const fast = await get(service, `/api/jobs/${id}`);
      expect(app.count()).toBe(0);
      const viaApp = await get(service, `/api/jobs/${id}/`);
      expect(app.count()).toBe(1);
      expect(fast).toEqual(viaApp);
      expect(fast.status).toBe(200);
      expect(JSON.parse(fast.body)).toMatchObject({ id, ...job });

      // A browser's cross-origin read (from a page on this machine: without a token, pages
      // elsewhere are refused, crossSiteRequests.test.ts), and a query string, which the route ignores.
      const origin = { Origin: 'http://localhost:3000' };
      const withOrigin = await get(service, `/api/jobs/${id}?fresh=1`, origin);
      expect(app.count()).toBe(1);
      expect(withOrigin).toEqual(await get(service, `/api/jobs/${id}/`, origin));
    } finally {
      app.restore();
    }
  });

  it('leaves every other case to the app, which answers it as before', async () => {
    const app = countAppRequests(service);
    try {
      const missing = await get(service, '/api/jobs/999999');
      expect([missing.status, JSON.parse(missing.body)]).toEqual([404, { error: 'job 999999 not found' }]);
      expect(missing).toEqual(await get(service, '/api/jobs/999999/'));
      const zero = await get(service, '/api/jobs/0');
      expect(zero.status).toBe(400);
      const tooLarge = await get(service, '/api/jobs/2147483648');
      expect(tooLarge.status).toBe(400);
      // A body is the JSON parser's to read (and refuse): here, malformed JSON.
      const json = { 'Content-Type': 'application/json', 'Content-Length': '1' };
      const withBody = await get(service, `/api/jobs/${id}`, json, '{');
      expect([withBody.status, JSON.parse(withBody.body)]).toEqual([
        400,
        { error: 'request body is not valid JSON' },
      ]);
      // A conditional read is the app's to judge fresh: `If-None-Match: *` is, without an ETag.
      const conditional = await get(service, `/api/jobs/${id}`, { 'If-None-Match': '*' });
      expect(conditional.status).toBe(304);
      expect(conditional).toEqual(await get(service, `/api/jobs/${id}/`, { 'If-None-Match': '*' }));
      const since = { 'If-Modified-Since': new Date().toUTCString() };
      const modifiedSince = await get(service, `/api/jobs/${id}`, since);
      expect(modifiedSince.status).toBe(200);
      expect(modifiedSince).toEqual(await get(service, `/api/jobs/${id}/`, since));
      // Every one of these 9 reached the app (the missing job after the fast path's read failed).
      expect(app.count()).toBe(9);
    } finally {
      app.restore();
    }
  });
});

describe('GET /api/jobs/:id in front of the app, with an API token', () => {
  const token = 'fast-path-token-of-the-test';
  let service: TestService;
  let id: number;
  beforeAll(async () => {
    service = await startTestService({ env: { SERVICE_API_TOKEN: token } });
    id = (
      await service.request('POST', '/api/jobs', job, {
        Authorization: `Bearer ${token}`,
      })
    ).body.id as number;
  });
  afterAll(async () => {
    await service.stop();
  });

  it('answers only with the right token; the app refuses the others as before', async () => {
    const app = countAppRequests(service);
    try {
      const right = await get(service, `/api/jobs/${id}`, { Authorization: `Bearer ${token}` });
      expect(right.status).toBe(200);
      expect(app.count()).toBe(0);
      expect(right).toEqual(await get(service, `/api/jobs/${id}/`, { Authorization: `Bearer ${token}` }));

      const missing = await get(service, `/api/jobs/${id}`);
      expect([missing.status, JSON.parse(missing.body)]).toEqual([
        401,
        { error: 'missing API token: send Authorization: Bearer <token>' },
      ]);
      expect(missing.headers).toContainEqual(['WWW-Authenticate', 'Bearer realm="crondeck"']);
      const wrong = await get(service, `/api/jobs/${id}`, { Authorization: 'Bearer nope' });
      expect([wrong.status, JSON.parse(wrong.body)]).toEqual([401, { error: 'invalid API token' }]);
      expect(app.count()).toBe(3);
    } finally {
      app.restore();
    }
  });
});
