import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { reportTokenFor } from '../../src/domain/reportToken';
import { eventually, startTestService, type TestService } from '../support/service';

/**
 * Without SERVICE_API_TOKEN anyone who reaches the API runs commands, so the service answers only
 * requests a page elsewhere cannot make: from no page at all, from a page on this machine or its
 * own, and addressed to this machine by a loopback name or its address (not a name rebound to
 * 127.0.0.1). With a token CORS is open to every origin, as the spec says.
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // Tests read whatever shape the endpoint answers.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One request with exactly these headers (a Host given replaces the one node:http would send). */
function send(
  service: TestService,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const withLength =
    body === undefined ? headers : { 'Content-Length': String(Buffer.byteLength(body)), ...headers };
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${service.url}${path}`, { method, headers: withLength }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // The dashboard's HTML, an empty preflight answer: tests read the text.
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const EVIL = 'https://attacker.example';
const jobBody = (name: string, command = 'true') => JSON.stringify({ name, schedule: '0 0 1 1 *', command });
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const preflight = (origin: string) => ({
  Origin: origin,
  'Access-Control-Request-Method': 'POST',
  'Access-Control-Request-Headers': 'content-type',
});

describe('a service without an API token, asked by another site', () => {
  let service: TestService;
  let dir: string;
  let names = 0;
  const fresh = () => `cross-site-${++names}`;
  const jobCount = async () =>
    Number((await service.db.pool.query('SELECT count(*) FROM jobs')).rows[0].count);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crondeck-cross-site-'));
    service = await startTestService();
  });
  afterAll(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to run a job for a page elsewhere (a simple POST, no preflight), with a reason and the fix', async () => {
    const marker = path.join(dir, 'ran');
    const created = await send(
      service,
      'POST',
      '/api/jobs',
      JSON_HEADERS,
      jobBody(fresh(), `touch ${marker}`),
    );
    expect(created.status).toBe(201);
    const run = `/api/jobs/${created.body.id}/run`;

    // What a form or `fetch(url, { method: 'POST', mode: 'no-cors' })` on that page sends.
    const refused = await send(service, 'POST', run, { Origin: EVIL, 'Content-Type': 'text/plain' }, '');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain(`a page on "${EVIL}"`);
    expect(refused.body.error).toContain('set SERVICE_API_TOKEN');
    // No CORS headers: the page is not even told why.
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();

    // The same request from a page on this machine runs the job; only that run is recorded.
    const local = await send(service, 'POST', run, { Origin: 'http://localhost:3000' });
    expect(local.status).toBe(200);
    expect(local.headers['access-control-allow-origin']).toBe('*');
    await eventually(async () => existsSync(marker));
    const executions = await eventually(async () => {
      const { rows } = await service.db.pool.query('SELECT id FROM executions WHERE job_id = $1', [
        created.body.id,
      ]);
      return rows.length > 0 && rows;
    });
    expect(executions).toHaveLength(1);
    expect(service.logger.lines).toContainEqual(
      expect.objectContaining({ msg: 'refused a request from another site', origin: EVIL, path: run }),
    );
  });

  it('refuses the preflight of a page elsewhere, and its creation if it sends one anyway', async () => {
    const before = await jobCount();
    const answer = await send(service, 'OPTIONS', '/api/jobs', preflight(EVIL));
    expect(answer.status).toBe(403);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.headers['access-control-allow-methods']).toBeUndefined();
    expect(answer.body.error).toContain('set SERVICE_API_TOKEN');

    // The plainest creation, which the front door takes in front of the app: not from there.
    const created = await send(
      service,
      'POST',
      '/api/jobs',
      { ...JSON_HEADERS, Origin: EVIL },
      jobBody(fresh()),
    );
    expect([created.status, created.body.error]).toEqual([403, expect.stringContaining('SERVICE_API_TOKEN')]);
    expect(await jobCount()).toBe(before);
  });

  it('refuses reads for a page elsewhere, those the front door answers too', async () => {
    const { body: job } = await send(service, 'POST', '/api/jobs', JSON_HEADERS, jobBody(fresh()));
    for (const path of [`/api/jobs/${job.id}`, '/api/executions', '/api/jobs', '/metrics', '/']) {
      const answer = await send(service, 'GET', path, { Origin: 'http://localhost.attacker.example' });
      expect([path, answer.status]).toEqual([path, 403]);
    }
  });

  it.each(['http://localhost:3000', 'https://localhost', 'http://127.0.0.1:8080', 'http://[::1]:5173'])(
    'answers a page on this machine (%s) as before, with CORS',
    async (origin) => {
      const preflighted = await send(service, 'OPTIONS', '/api/jobs', preflight(origin));
      expect(preflighted.status).toBe(204);
      expect(preflighted.headers['access-control-allow-origin']).toBe('*');
      const created = await send(
        service,
        'POST',
        '/api/jobs',
        { ...JSON_HEADERS, Origin: origin },
        jobBody(fresh()),
      );
      expect(created.status).toBe(201);
      expect(created.headers['access-control-allow-origin']).toBe('*');
      for (const path of [`/api/jobs/${created.body.id}`, '/api/executions', '/api/jobs']) {
        const read = await send(service, 'GET', path, { Origin: origin });
        expect([path, read.status, read.headers['access-control-allow-origin']]).toEqual([path, 200, '*']);
      }
    },
  );

  it('answers requests without an Origin (curl, scripts) as before', async () => {
    const created = await send(service, 'POST', '/api/jobs', JSON_HEADERS, jobBody(fresh()));
    expect(created.status).toBe(201);
    expect((await send(service, 'POST', `/api/jobs/${created.body.id}/run`)).status).toBe(200);
    expect((await send(service, 'GET', '/api/jobs')).status).toBe(200);
  });

  it('answers its own dashboard, whose page is on the service’s origin', async () => {
    const own = { Origin: service.url };
    expect((await send(service, 'GET', '/', own)).status).toBe(200);
    const created = await send(service, 'POST', '/api/jobs', { ...JSON_HEADERS, ...own }, jobBody(fresh()));
    expect(created.status).toBe(201);
    const patched = await send(
      service,
      'PATCH',
      `/api/jobs/${created.body.id}/toggle`,
      { ...JSON_HEADERS, ...own },
      JSON.stringify({ enabled: false }),
    );
    expect(patched.status).toBe(200);
  });

  it('refuses a request for another name (DNS rebinding), on every path, naming the Host and the fix', async () => {
    const before = await jobCount();
    const { body: job } = await send(service, 'POST', '/api/jobs', JSON_HEADERS, jobBody(fresh()));
    const port = new URL(service.url).port;
    const rebound = { Host: `attacker.example:${port}` };
    // A rebound page is on the service's origin as far as its browser knows: same origin, no preflight.
    const sameOrigin = { ...rebound, Origin: `http://attacker.example:${port}` };
    const attempts: [string, string, Record<string, string>, string?][] = [
      ['GET', '/api/jobs', rebound],
      ['GET', `/api/jobs/${job.id}`, rebound],
      ['GET', '/api/executions', rebound],
      ['POST', '/api/jobs', { ...sameOrigin, ...JSON_HEADERS }, jobBody(fresh())],
      ['POST', `/api/jobs/${job.id}/run`, sameOrigin],
      ['GET', '/', rebound],
      ['GET', '/assets/js/api.js', rebound],
      ['GET', '/metrics', rebound],
    ];
    for (const [method, path, headers, body] of attempts) {
      const answer = await send(service, method, path, headers, body);
      expect([method, path, answer.status]).toEqual([method, path, 403]);
      expect(answer.body.error).toContain(`the Host "attacker.example:${port}"`);
      expect(answer.body.error).toContain('set SERVICE_API_TOKEN');
    }
    expect(await jobCount()).toBe(before + 1);
    const { rows } = await service.db.pool.query('SELECT id FROM executions WHERE job_id = $1', [job.id]);
    expect(rows).toEqual([]);
  });

  it.each(['localhost', '127.0.0.1', '127.0.0.2', '[::1]'])('answers a request for %s', async (name) => {
    const host = { Host: `${name}:${new URL(service.url).port}` };
    expect((await send(service, 'GET', '/api/jobs', host)).status).toBe(200);
    expect((await send(service, 'GET', '/', host)).status).toBe(200);
  });
});

describe('a service without an API token, reported to by its pods', () => {
  const secret = 'a-report-secret-of-at-least-32-characters';
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { SERVICE_REPORT_SECRET: secret } });
  });
  afterAll(async () => {
    await service.stop();
  });

  it('takes reports and claims addressed to any name: they carry their job’s own token', async () => {
    const created = await send(service, 'POST', '/api/jobs', JSON_HEADERS, jobBody('reported'));
    const clusterName = { Host: 'crondeck.crondeck.svc:7433', ...JSON_HEADERS };
    const report = JSON.stringify({
      podUid: 'pod-1',
      runUid: 'run-1',
      attempt: 0,
      final: true,
      status: 'success',
      exitCode: 0,
      startedAt: '2026-11-23T10:00:00.000Z',
      finishedAt: '2026-11-23T10:00:01.000Z',
    });
    const withToken = { ...clusterName, Authorization: `Bearer ${reportTokenFor(secret, created.body.id)}` };
    const reported = await send(service, 'POST', `/api/jobs/${created.body.id}/reports`, withToken, report);
    expect(reported.status).toBe(201);
    // Without the token, the route's own refusal, not the guard's.
    const unsigned = await send(service, 'POST', `/api/jobs/${created.body.id}/reports`, clusterName, report);
    expect([unsigned.status, unsigned.body]).toEqual([
      403,
      { error: 'missing report token: send Authorization: Bearer <token>' },
    ]);
    const claim = await send(service, 'POST', `/api/jobs/${created.body.id}/slots/claim`, clusterName, '{}');
    expect([claim.status, claim.body]).toEqual([
      403,
      { error: 'missing report token: send Authorization: Bearer <token>' },
    ]);
  });
});

describe('a service with an API token, asked by another site', () => {
  const token = 'a-token-of-enough-length-0123';
  const auth = { Authorization: `Bearer ${token}` };
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { SERVICE_API_TOKEN: token } });
  });
  afterAll(async () => {
    await service.stop();
  });

  it('answers every origin and every Host with CORS open, as the spec says: the page has no token', async () => {
    const preflighted = await send(service, 'OPTIONS', '/api/jobs', preflight(EVIL));
    expect(preflighted.status).toBe(204);
    expect(preflighted.headers['access-control-allow-origin']).toBe('*');
    expect(preflighted.headers['access-control-allow-methods']).toContain('POST');

    const headers = { ...auth, ...JSON_HEADERS, Origin: EVIL, Host: 'crondeck.example.com' };
    const created = await send(service, 'POST', '/api/jobs', headers, jobBody('with-token'));
    expect([created.status, created.headers['access-control-allow-origin']]).toEqual([201, '*']);
    const run = await send(service, 'POST', `/api/jobs/${created.body.id}/run`, headers);
    expect([run.status, run.headers['access-control-allow-origin']]).toEqual([200, '*']);
    for (const path of [`/api/jobs/${created.body.id}`, '/api/executions', '/api/jobs', '/health', '/']) {
      const read = await send(service, 'GET', path, headers);
      expect([path, read.status, read.headers['access-control-allow-origin']]).toEqual([path, 200, '*']);
    }
    // Without the token, the token's refusal, with CORS headers so that the page can read it.
    const anonymous = await send(service, 'POST', `/api/jobs/${created.body.id}/run`, { Origin: EVIL });
    expect([anonymous.status, anonymous.headers['access-control-allow-origin']]).toEqual([401, '*']);
  });
});
