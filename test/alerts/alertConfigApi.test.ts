import type { LookupAddress, lookup } from 'node:dns';
import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import { startTestService, type TestService } from '../support/service';

describe('GET|PUT|DELETE /api/jobs/:id/alerts', () => {
  let db: Database;
  let service: TestService;
  let jobId: number;

  const valid = {
    webhooks: [
      { url: 'https://hooks.slack.com/services/T/B/X', events: ['timeout', 'failed', 'failed'] },
      { url: 'http://receiver.internal:8080/hook?x=1', events: ['success'] },
    ],
    emails: [{ to: ['ops@example.com', 'oncall@localhost'], events: ['failed'] }],
  };
  const stored = {
    webhooks: [
      { url: 'https://hooks.slack.com/services/T/B/X', events: ['failed', 'timeout'] },
      { url: 'http://receiver.internal:8080/hook?x=1', events: ['success'] },
    ],
    emails: [{ to: ['ops@example.com', 'oncall@localhost'], events: ['failed'] }],
  };

  /**
   * With deny ranges set, a PUT looks up each webhook's host name. The names here answer at once
   * with a public (documentation) address, as a resolver would answer for such hosts: allowed. The
   * system's resolver would send real DNS queries, one per webhook, and a query lost on the way
   * costs its 5 s retry (glibc's timeout): a few PUTs of the file took 5 s each that way.
   */
  const lookupWebhookHost = ((
    _host: string,
    _options: unknown,
    callback: (error: null, addresses: LookupAddress[]) => void,
  ) => callback(null, [{ address: '192.0.2.10', family: 4 }])) as unknown as typeof lookup;

  beforeAll(async () => {
    db = await createTestDatabase();
    service = await startTestService({
      db,
      env: { SERVICE_WEBHOOK_DENY_CIDRS: '169.254.0.0/16, fd00::/8' },
      alerting: { lookupWebhookHost },
    });
    const created = await service.request('POST', '/api/jobs', {
      name: 'backup',
      schedule: '0 2 * * *',
      command: 'true',
    });
    jobId = created.body.id;
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  it('answers empty lists for a job without alerts', async () => {
    const read = await service.request('GET', `/api/jobs/${jobId}/alerts`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ webhooks: [], emails: [] });
  });

  it('stores a configuration with PUT (events in canonical order, once) and returns it with GET', async () => {
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, valid);
    expect(put.status).toBe(200);
    expect(put.body).toEqual(stored);
    expect((await service.request('GET', `/api/jobs/${jobId}/alerts`)).body).toEqual(stored);
  });

  it('replaces the whole configuration: a list left out is emptied', async () => {
    await service.request('PUT', `/api/jobs/${jobId}/alerts`, valid);
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, {
      webhooks: [{ url: 'https://example.com/a', events: ['success'] }],
    });
    expect(put.status).toBe(200);
    expect((await service.request('GET', `/api/jobs/${jobId}/alerts`)).body).toEqual({
      webhooks: [{ url: 'https://example.com/a', events: ['success'] }],
      emails: [],
    });
  });

  const tooMany = (n: number, item: (i: number) => unknown) => Array.from({ length: n }, (_, i) => item(i));
  const rejected: [string, unknown, RegExp][] = [
    ['a body that is not an object', [1, 2], /^request body must be a JSON object/],
    ['an unknown field', { webhooks: [], slack: [] }, /^unknown field slack$/],
    ['webhooks that are not a list', { webhooks: 'https://x' }, /^webhooks: must be an array/],
    ['a webhook without url', { webhooks: [{ events: ['failed'] }] }, /^webhooks\.0\.url: is required/],
    [
      'a webhook field we do not know',
      { webhooks: [{ url: 'https://x.io', events: ['failed'], token: 1 }] },
      /^webhooks\.0: unknown field token$/,
    ],
    [
      'an ftp URL',
      { webhooks: [{ url: 'ftp://example.com/x', events: ['failed'] }] },
      /^webhooks\.0\.url: must be an http:\/\/ or https:\/\/ URL$/,
    ],
    [
      'a relative URL',
      { webhooks: [{ url: '/hook', events: ['failed'] }] },
      /^webhooks\.0\.url: must be an http/,
    ],
    [
      'a URL over 2048 characters',
      { webhooks: [{ url: `https://example.com/${'a'.repeat(2030)}`, events: ['failed'] }] },
      /^webhooks\.0\.url: must be at most 2048 characters$/,
    ],
    [
      'a URL with a line break',
      { webhooks: [{ url: 'https://example.com/a\r\nb', events: ['failed'] }] },
      /^webhooks\.0\.url: must not contain/,
    ],
    [
      'empty events',
      { webhooks: [{ url: 'https://x.io', events: [] }] },
      /^webhooks\.0\.events: must name at least one event$/,
    ],
    [
      'an unknown event',
      { webhooks: [{ url: 'https://x.io', events: ['failed', 'skipped'] }] },
      /^webhooks\.0\.events\.1: must be one of success, failed, timeout, recovered, overrun, tooFast, suspended, missed, late$/,
    ],
    [
      'events that are not a list',
      { webhooks: [{ url: 'https://x.io', events: 'failed' }] },
      /^webhooks\.0\.events: must be an array/,
    ],
    [
      '11 webhooks',
      { webhooks: tooMany(11, (i) => ({ url: `https://x.io/${i}`, events: ['failed'] })) },
      /^webhooks: must have at most 10 entries$/,
    ],
    [
      'e-mail recipients as a string',
      { emails: [{ to: 'ops@example.com', events: ['failed'] }] },
      /^emails\.0\.to: must be an array of e-mail addresses$/,
    ],
    [
      'no recipients',
      { emails: [{ to: [], events: ['failed'] }] },
      /^emails\.0\.to: must name at least one address$/,
    ],
    [
      'an invalid address',
      { emails: [{ to: ['ops@example.com', 'not an address'], events: ['failed'] }] },
      /^emails\.0\.to\.1: must not contain spaces/,
    ],
    [
      'a header injection',
      { emails: [{ to: ['ops@example.com\r\nBcc: all@example.com'], events: ['failed'] }] },
      /^emails\.0\.to\.0: must not contain spaces, line breaks or control characters$/,
    ],
    [
      'a display name',
      { emails: [{ to: ['Ops <ops@example.com>'], events: ['failed'] }] },
      /^emails\.0\.to\.0: must/,
    ],
    [
      'two addresses in one string',
      { emails: [{ to: ['a@example.com,b@example.com'], events: ['failed'] }] },
      /^emails\.0\.to\.0: must be an e-mail address/,
    ],
    [
      '11 e-mail entries',
      { emails: tooMany(11, (i) => ({ to: [`u${i}@example.com`], events: ['failed'] })) },
      /^emails: must have at most 10 entries$/,
    ],
    [
      'e-mail events missing',
      { emails: [{ to: ['ops@example.com'] }] },
      /^emails\.0\.events: must be an array/,
    ],
    [
      'a denied address',
      { webhooks: [{ url: 'http://169.254.169.254/latest', events: ['failed'] }] },
      /^webhooks\.0\.url: 169\.254\.169\.254 is in a range that SERVICE_WEBHOOK_DENY_CIDRS denies$/,
    ],
    [
      'a denied IPv6 address',
      {
        webhooks: [
          { url: 'https://x.io', events: ['failed'] },
          { url: 'http://[fd12::1]/x', events: ['failed'] },
        ],
      },
      /^webhooks\.1\.url: fd12::1 is in a range/,
    ],
  ];

  it.each(rejected)(
    'rejects %s with 400 naming the field, and keeps the previous configuration',
    async (_, body, message) => {
      await service.request('PUT', `/api/jobs/${jobId}/alerts`, valid);
      const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, body);
      expect(put.status).toBe(400);
      expect(put.body).toEqual({ error: expect.stringMatching(message) });
      expect((await service.request('GET', `/api/jobs/${jobId}/alerts`)).body).toEqual(stored);
    },
  );

  const withPolicy = (policy: unknown) => ({ webhooks: [], policy });
  const badPolicies: [string, unknown, string][] = [
    [
      'a policy that is not an object',
      withPolicy([3]),
      'policy: must be an object { afterConsecutiveFailures',
    ],
    ['an unknown policy key', withPolicy({ afterFailures: 3 }), 'policy: unknown field afterFailures'],
    [
      'a threshold of 0',
      withPolicy({ afterConsecutiveFailures: 0 }),
      'policy.afterConsecutiveFailures: must be at least 1',
    ],
    [
      'a fractional threshold',
      withPolicy({ suspendAfterFailures: 1.5 }),
      'policy.suspendAfterFailures: must be a whole number',
    ],
    [
      'a threshold as a string',
      withPolicy({ suspendAfterFailures: '3' }),
      'policy.suspendAfterFailures: must be a number of failed runs',
    ],
    [
      'a huge threshold',
      withPolicy({ afterConsecutiveFailures: 1001 }),
      'policy.afterConsecutiveFailures: must be at most 1000',
    ],
    ['recovery as a string', withPolicy({ recovery: 'yes' }), 'policy.recovery: must be true or false'],
    [
      'a reminder every 10 s',
      withPolicy({ repeatEverySeconds: 10 }),
      'policy.repeatEverySeconds: must be at least 60',
    ],
    [
      'a negative limit',
      withPolicy({ maxDurationSeconds: -1 }),
      'policy.maxDurationSeconds: must be at least 1',
    ],
    [
      'a minimum above the maximum',
      withPolicy({ minDurationSeconds: 600, maxDurationSeconds: 60 }),
      'policy.minDurationSeconds: must be less than maxDurationSeconds',
    ],
    [
      'maintenance that is not a list',
      withPolicy({ maintenance: { schedule: '0 2 * * *', durationSeconds: 60 } }),
      'policy.maintenance: must be an array of { schedule, durationSeconds, timezone }',
    ],
    [
      'a window with a bad schedule',
      withPolicy({ maintenance: [{ schedule: '61 2 * * *', durationSeconds: 600 }] }),
      'policy.maintenance.0.schedule: ',
    ],
    [
      'a window that never opens',
      withPolicy({ maintenance: [{ schedule: '0 0 30 2 *', durationSeconds: 600 }] }),
      'policy.maintenance.0.schedule: day-of-month and month never meet',
    ],
    [
      'a window in an unknown zone',
      withPolicy({
        maintenance: [{ schedule: '0 2 * * *', durationSeconds: 600, timezone: 'Mars/Olympus' }],
      }),
      'policy.maintenance.0.timezone: must be an IANA time zone name',
    ],
    [
      'a window without a duration',
      withPolicy({ maintenance: [{ schedule: '0 2 * * *' }] }),
      'policy.maintenance.0.durationSeconds: must be a number of seconds',
    ],
    [
      'a window longer than a week',
      withPolicy({ maintenance: [{ schedule: '0 2 * * *', durationSeconds: 604801 }] }),
      'policy.maintenance.0.durationSeconds: must be at most 604800',
    ],
    [
      'an unknown window key',
      withPolicy({ maintenance: [{ schedule: '0 2 * * *', durationSeconds: 600, zone: 'UTC' }] }),
      'policy.maintenance.0: unknown field zone',
    ],
    [
      '21 windows',
      withPolicy({ maintenance: tooMany(21, () => ({ schedule: '0 2 * * *', durationSeconds: 600 })) }),
      'policy.maintenance: must have at most 20 windows',
    ],
  ];

  it.each(badPolicies)(
    'rejects %s with 400 naming the field, and keeps the previous configuration and policy',
    async (_, body, message) => {
      const before = { ...valid, policy: { afterConsecutiveFailures: 2, recovery: true } };
      expect((await service.request('PUT', `/api/jobs/${jobId}/alerts`, before)).status).toBe(200);
      const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, body);
      expect(put.status).toBe(400);
      expect(put.body.error.startsWith(message)).toBe(true);
      expect((await service.request('GET', `/api/jobs/${jobId}/alerts`)).body).toEqual({
        ...stored,
        policy: { afterConsecutiveFailures: 2, recovery: true },
      });
    },
  );

  it('stores a policy, returns it, and drops an empty one', async () => {
    const policy = {
      afterConsecutiveFailures: 3,
      recovery: true,
      repeatEverySeconds: 3600,
      maintenance: [{ schedule: '30 23 * * 6', durationSeconds: 7200, timezone: 'Europe/Berlin' }],
      maxDurationSeconds: 1800,
      minDurationSeconds: 5,
      suspendAfterFailures: 10,
    };
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, { ...valid, policy });
    expect(put.body).toEqual({ ...stored, policy });
    expect((await service.request('GET', `/api/jobs/${jobId}/alerts`)).body).toEqual({ ...stored, policy });
    // A policy alone (no destinations) is a configuration too: it can suspend the job.
    await service.request('PUT', `/api/jobs/${jobId}/alerts`, { policy: { suspendAfterFailures: 2 } });
    expect((await service.request('GET', `/api/jobs/${jobId}/alerts`)).body).toEqual({
      webhooks: [],
      emails: [],
      policy: { suspendAfterFailures: 2 },
    });
    await service.request('PUT', `/api/jobs/${jobId}/alerts`, { ...valid, policy: {} });
    expect((await service.request('GET', `/api/jobs/${jobId}/alerts`)).body).toEqual(stored);
  });

  it('lists a job’s alert history, and refuses a bad limit or an unknown job', async () => {
    expect((await service.request('GET', `/api/jobs/${jobId}/alerts/history`)).body).toEqual([]);
    const bad = await service.request('GET', `/api/jobs/${jobId}/alerts/history?limit=0`);
    expect([bad.status, bad.body]).toEqual([400, { error: 'limit: must be a whole number from 1 to 500' }]);
    const missing = await service.request('GET', '/api/jobs/999999/alerts/history');
    expect([missing.status, missing.body]).toEqual([404, { error: 'job 999999 not found' }]);
  });

  it('rejects a PUT without a JSON body', async () => {
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`);
    expect(put.status).toBe(400);
    expect(put.body.error).toMatch(/^request body must be a JSON object/);
  });

  it('accepts exactly 10 webhooks and 10 e-mail entries', async () => {
    const body = {
      webhooks: tooMany(10, (i) => ({ url: `https://x.io/${i}`, events: ['failed'] })),
      emails: tooMany(10, (i) => ({ to: [`u${i}@example.com`], events: ['success'] })),
    };
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, body);
    expect(put.status).toBe(200);
    expect(put.body.webhooks).toHaveLength(10);
    expect(put.body.emails).toHaveLength(10);
  });

  it('removes webhooks and e-mails with DELETE', async () => {
    await service.request('PUT', `/api/jobs/${jobId}/alerts`, valid);
    const removed = await service.request('DELETE', `/api/jobs/${jobId}/alerts`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ ok: true, jobId });
    expect((await service.request('GET', `/api/jobs/${jobId}/alerts`)).body).toEqual({
      webhooks: [],
      emails: [],
    });
    // Deleting what is not there is fine.
    expect((await service.request('DELETE', `/api/jobs/${jobId}/alerts`)).status).toBe(200);
  });

  it.each(['GET', 'PUT', 'DELETE'])('answers %s for an unknown job with 404', async (method) => {
    const response = await service.request(
      method,
      '/api/jobs/999999/alerts',
      method === 'PUT' ? valid : undefined,
    );
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'job 999999 not found' });
  });

  it.each(['abc', '1.5', '-1', '0', '99999999999'])('answers a job id of %s with 400', async (id) => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await service.request(
        method,
        `/api/jobs/${id}/alerts`,
        method === 'PUT' ? valid : undefined,
      );
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/^id: /);
    }
  });

  it('drops the configuration with its job', async () => {
    const created = await service.request('POST', '/api/jobs', {
      name: 'short-lived',
      schedule: '@daily',
      command: 'true',
    });
    await service.request('PUT', `/api/jobs/${created.body.id}/alerts`, valid);
    expect((await service.request('DELETE', `/api/jobs/${created.body.id}`)).status).toBe(200);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM alert_configs WHERE job_id = $1', [
      created.body.id,
    ]);
    expect(rows[0].n).toBe(0);
    expect((await service.request('GET', `/api/jobs/${created.body.id}/alerts`)).status).toBe(404);
  });
});
