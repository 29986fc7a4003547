import { countAppRequests, rawRequest, type RawAnswer } from '../support/frontDoor';
import { startTestService, type TestService } from '../support/service';

/**
 * `POST /api/jobs` is taken in front of Express (http/frontDoor/jobCreation.ts) when its form is
 * the plainest. Whichever way a creation goes, the client sees the same answer: status, headers in
 * their order, body. The app's own answer is had by posting to `/api/jobs/`, a path Express routes
 * to the same handler and the front door leaves to it.
 */

const JSON_TYPE = 'application/json';
let names = 0;
const fresh = () => `front-${++names}`;

/** The fields of a created job that differ between two creations of the same input. */
function sameButIdentity(answer: RawAnswer): unknown {
  const job = JSON.parse(answer.body) as Record<string, unknown>;
  return {
    ...answer,
    headers: answer.headers.map(([name, value]) => [name, name === 'Content-Length' ? '(length)' : value]),
    body: JSON.stringify({ ...job, id: '(id)', name: '(name)', createdAt: '(time)', updatedAt: '(time)' }),
  };
}

function post(
  service: TestService,
  path: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
) {
  const length = { 'Content-Length': String(Buffer.byteLength(body)) };
  return rawRequest(service, 'POST', path, { 'Content-Type': JSON_TYPE, ...length, ...headers }, body);
}

describe('POST /api/jobs in front of the app', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.stop();
  });

  const job = () => ({ name: fresh(), schedule: '0 0 1 1 *', command: 'echo front', tags: ['a', 'b'] });

  it('creates a job without the app, answering the bytes and headers the app answers', async () => {
    const app = countAppRequests(service);
    try {
      const input = job();
      const front = await post(service, '/api/jobs', JSON.stringify(input));
      expect(app.count()).toBe(0);
      expect(front.status).toBe(201);
      const created = JSON.parse(front.body) as { id: number };
      expect(created).toMatchObject(input);
      // It is there for whoever reads it, as the app created it.
      const read = await service.request('GET', `/api/jobs/${created.id}`);
      expect(read.body).toEqual(created);

      const viaApp = await post(service, '/api/jobs/', JSON.stringify({ ...input, name: fresh() }));
      expect(app.count()).toBe(1);
      expect(sameButIdentity(front)).toEqual(sameButIdentity(viaApp));

      // A browser's cross-origin creation (from a page on this machine: without a token, pages
      // elsewhere are refused, crossSiteRequests.test.ts); a charset named; a byte-order mark,
      // which the app's parser drops.
      const origin = { Origin: 'http://localhost:3000' };
      const withOrigin = await post(service, '/api/jobs', JSON.stringify(job()), origin);
      const utf8 = { 'Content-Type': 'application/json; charset=UTF-8' };
      const withCharset = await post(service, '/api/jobs', JSON.stringify(job()), utf8);
      const withMark = await post(service, '/api/jobs', `\uFEFF${JSON.stringify(job())}`);
      expect(app.count()).toBe(1);
      const withOriginViaApp = await post(service, '/api/jobs/', JSON.stringify(job()), origin);
      expect(sameButIdentity(withOrigin)).toEqual(sameButIdentity(withOriginViaApp));
      for (const answer of [withCharset, withMark])
        expect(sameButIdentity(answer)).toEqual(sameButIdentity(front));
    } finally {
      app.restore();
    }
  });

  it('hands each failure of a creation it took to the app, which answers it as it answers its own', async () => {
    const taken = job();
    expect((await post(service, '/api/jobs', JSON.stringify(taken))).status).toBe(201);
    const failures: [string, string, number, string][] = [
      ['not JSON', '{"name": "x",', 400, 'request body is not valid JSON'],
      ['not an object', '42', 400, 'request body must be a JSON object'],
      ['a field refused', JSON.stringify({ ...job(), schedule: 'every day' }), 400, ''],
      ['a name taken', JSON.stringify(taken), 409, `a job named "${taken.name}" already exists`],
    ];
    for (const [what, body, status, message] of failures) {
      const app = countAppRequests(service);
      try {
        const front = await post(service, '/api/jobs', body);
        // The front door read it, then gave it with its failure to the app to answer.
        expect([what, app.count()]).toEqual([what, 1]);
        const viaApp = await post(service, '/api/jobs/', body);
        expect([what, front]).toEqual([what, viaApp]);
        expect([what, front.status]).toEqual([what, status]);
        if (message) expect(JSON.parse(front.body)).toEqual({ error: message });
        else expect(JSON.parse(front.body)).toEqual({ error: expect.stringMatching(/^schedule/) });
        expect(front.headers[0]).toEqual(['Access-Control-Allow-Origin', '*']);
      } finally {
        app.restore();
      }
    }
  });

  it('leaves every other form to the app untouched, which answers it as before', async () => {
    const body = JSON.stringify(job());
    const overLimit = JSON.stringify({ ...job(), description: 'x'.repeat(1024 * 1024) });
    const others: [string, string, Record<string, string>, number][] = [
      ['another type', body, { 'Content-Type': 'text/plain' }, 415],
      ['another charset', body, { 'Content-Type': 'application/json; charset=utf-16le' }, 400],
      ['compressed', body, { 'Content-Encoding': 'gzip' }, 400],
      ['a body over the limit', overLimit, {}, 413],
    ];
    for (const [what, sent, headers, status] of others) {
      const app = countAppRequests(service);
      try {
        const answer = await post(service, '/api/jobs', sent, headers);
        expect([what, answer.status]).toEqual([what, status]);
        expect([what, app.count()]).toEqual([what, 1]);
      } finally {
        app.restore();
      }
    }
    // Chunked, without a declared length: created by the app.
    const app = countAppRequests(service);
    try {
      const headers = { 'Content-Type': JSON_TYPE, 'Transfer-Encoding': 'chunked' };
      const chunked = await rawRequest(service, 'POST', '/api/jobs', headers, JSON.stringify(job()));
      expect([chunked.status, app.count()]).toEqual([201, 1]);
    } finally {
      app.restore();
    }
  });
});

describe('POST /api/jobs in front of the app, with an API token', () => {
  const token = 'front-door-token-of-the-test';
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { SERVICE_API_TOKEN: token } });
  });
  afterAll(async () => {
    await service.stop();
  });

  it('creates only with the right token; the app refuses the others as before', async () => {
    const app = countAppRequests(service);
    try {
      const body = () => JSON.stringify({ name: fresh(), schedule: '@daily', command: 'true' });
      const right = await post(service, '/api/jobs', body(), { Authorization: `Bearer ${token}` });
      expect([right.status, app.count()]).toEqual([201, 0]);
      const missing = await post(service, '/api/jobs', body());
      expect([missing.status, JSON.parse(missing.body)]).toEqual([
        401,
        { error: 'missing API token: send Authorization: Bearer <token>' },
      ]);
      const wrong = await post(service, '/api/jobs', body(), { Authorization: 'Bearer nope' });
      expect([wrong.status, JSON.parse(wrong.body)]).toEqual([401, { error: 'invalid API token' }]);
      expect(app.count()).toBe(2);
    } finally {
      app.restore();
    }
  });
});
