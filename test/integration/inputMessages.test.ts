import { startTestService, type TestService } from '../support/service';

/** What a client is told when its request is wrong: the problem named, never validator jargon. */
describe('messages about bad requests', () => {
  let service: TestService;
  let jobId: number;
  let labelId: number;
  beforeAll(async () => {
    service = await startTestService();
    jobId = (await service.request('POST', '/api/jobs', { name: 'j', schedule: '@daily', command: 'true' }))
      .body.id;
    labelId = (await service.request('POST', '/api/labels', { name: 'l' })).body.id;
  });
  afterAll(async () => {
    await service.stop();
  });

  const send = (method: string, path: string, body?: string, type?: string) =>
    service.request(method, path, body, type ? { 'content-type': type } : {});

  it('answers a body in another type than JSON 415, naming the type expected', async () => {
    const routes: [string, string, string][] = [
      ['POST', '/api/jobs', JSON.stringify({ name: 'x', schedule: '@daily', command: 'true' })],
      ['PUT', `/api/jobs/${jobId}`, JSON.stringify({ name: 'j', schedule: '@daily', command: 'true' })],
      ['PATCH', `/api/jobs/${jobId}/toggle`, JSON.stringify({ enabled: false })],
      ['PUT', `/api/jobs/${jobId}/alerts`, JSON.stringify({})],
      ['POST', '/api/scheduler/pause', JSON.stringify({})],
      ['POST', '/api/drafts', JSON.stringify({ identity_id: 1 })],
      ['POST', '/api/labels', JSON.stringify({ name: 'n' })],
      ['PUT', `/api/labels/${labelId}`, JSON.stringify({ color: 'red' })],
    ];
    for (const [method, path, body] of routes) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const response = await send(method, path, body, type);
        expect([method, path, type, response.status, response.body]).toEqual([
          method,
          path,
          type,
          415,
          { error: 'Content-Type must be application/json' },
        ]);
      }
    }
    expect((await send('POST', '/api/messages?identity_id=1', 'x', 'text/plain')).body).toEqual({
      error: 'Content-Type must be application/json or message/rfc822',
    });
    // No body is no body, whatever its type says (curl -X POST -d '').
    expect(
      (await send('POST', '/api/scheduler/resume', '', 'application/x-www-form-urlencoded')).status,
    ).toBe(200);
    expect((await send('POST', `/api/jobs/${jobId}/run`, '', 'text/plain')).status).toBe(200);
    await service.local.idle();
  });

  it('answers a JSON scalar body "must be a JSON object", not "not valid JSON"', async () => {
    const routes: [string, string][] = [
      ['POST', '/api/jobs'],
      ['PUT', `/api/jobs/${jobId}`],
      ['PATCH', `/api/jobs/${jobId}/toggle`],
      ['PUT', `/api/jobs/${jobId}/alerts`],
      ['POST', '/api/scheduler/pause'],
      ['POST', '/api/drafts'],
      ['POST', '/api/labels'],
      ['PUT', `/api/labels/${labelId}`],
      ['POST', '/api/messages'],
    ];
    for (const [method, path] of routes) {
      for (const body of ['42', 'null', '"text"', 'true']) {
        const response = await send(method, path, body, 'application/json');
        expect([method, path, body, response.status]).toEqual([method, path, body, 400]);
        expect(response.body.error).toMatch(/^request body must be a JSON object/);
      }
    }
    expect((await send('POST', '/api/jobs', '{', 'application/json')).body).toEqual({
      error: 'request body is not valid JSON',
    });
  });

  it('says that a query parameter may be given once', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/api/executions?jobId=1&jobId=2', 'jobId: may be given only once'],
      ['GET', '/api/executions?limit=1&limit=2', 'limit: may be given only once'],
      ['GET', '/api/executions?status=failed&status=success', 'status: may be given only once'],
      ['GET', '/api/cron/describe?expr=@daily&expr=@hourly', 'expr: may be given only once'],
      ['GET', '/api/cron/describe?expr=@daily&timezone=UTC&timezone=UTC', 'timezone: may be given only once'],
      ['GET', `/api/labels/${labelId}/messages?offset=0&offset=1`, 'offset: may be given only once'],
      ['GET', `/api/labels/filter?ids=${labelId}&limit=1&limit=2`, 'limit: may be given only once'],
    ];
    for (const [method, path, error] of cases) {
      const response = await send(method, path);
      expect([path, response.status, response.body]).toEqual([path, 400, { error }]);
    }
    const rfc822 = await send(
      'POST',
      '/api/messages?identity_id=1&uid=1&uid=2',
      'Subject: s\r\n\r\nx',
      'message/rfc822',
    );
    expect(rfc822.body).toEqual({ error: 'uid: may be given only once' });
    // The label filters read a repeated ids as one list, as documented.
    expect((await send('GET', `/api/labels/filter/count?ids=${labelId}&ids=${labelId}`)).status).toBe(200);
  });

  it('refuses NUL in a job with a 400 naming the field, and stores lone surrogates as U+FFFD', async () => {
    const base = { name: 'nul', schedule: '@daily', command: 'true' };
    const cases: [Record<string, unknown>, string][] = [
      [{ command: 'find /etc -print0\u0000' }, 'command: must not contain NUL characters'],
      [{ description: 'a\u0000b' }, 'description: must not contain NUL characters'],
      [{ tags: ['ok', 'x\u0000'] }, 'tags.1: must not contain NUL characters'],
      [{ timezone: 'UTC\u0000' }, 'timezone: must not contain NUL characters'],
      [{ schedule: '@daily\u0000' }, 'schedule: must not contain NUL characters'],
    ];
    for (const [fields, error] of cases) {
      for (const [method, path] of [
        ['POST', '/api/jobs'],
        ['PUT', `/api/jobs/${jobId}`],
      ] as const) {
        const response = await service.request(method, path, { ...base, ...fields });
        expect([method, response.status, response.body]).toEqual([method, 400, { error }]);
      }
    }
    // Text that is merely unusual is stored as sent.
    const odd = '\u2400 \ufffd \u202e \ud83d\ude00';
    const created = await service.request('POST', '/api/jobs', {
      ...base,
      name: 'odd',
      description: odd,
      tags: [odd],
    });
    expect(created.status).toBe(201);
    expect((await service.request('GET', `/api/jobs/${created.body.id}`)).body).toMatchObject({
      description: odd,
      tags: [odd],
    });
    // A lone surrogate has no UTF-8 form: it is written as U+FFFD, in text and in JSON columns alike.
    const half = await service.request('POST', '/api/jobs', {
      ...base,
      name: 'half',
      description: 'half \ud800 pair',
      tags: ['\udc00'],
    });
    expect(half.status).toBe(201);
    expect((await service.request('GET', `/api/jobs/${half.body.id}`)).body).toMatchObject({
      description: 'half \ufffd pair',
      tags: ['\ufffd'],
    });
  });

  it('takes alert configurations with text the database cannot hold as sent, without a 5xx', async () => {
    const put = (body: unknown) => service.request('PUT', `/api/jobs/${jobId}/alerts`, body);
    const nul = await put({ webhooks: [{ url: 'http://example.com/\u0000', events: ['failed'] }] });
    expect([nul.status, nul.body.error]).toEqual([400, 'webhooks.0.url: must not contain NUL characters']);
    const half = await put({ webhooks: [{ url: 'http://example.com/\ud800', events: ['failed'] }] });
    expect([half.status, half.body]).toEqual([
      200,
      { webhooks: [{ url: 'http://example.com/\ufffd', events: ['failed'] }], emails: [] },
    ]);
    const mail = await put({ emails: [{ to: ['ops\ud800@example.com'], events: ['failed'] }] });
    expect(mail.status).toBe(400);
  });

  it('says what is wrong with a path that is not percent-encoded UTF-8', async () => {
    for (const path of [
      '/api/jobs/%',
      '/api/jobs/%E0',
      '/api/drafts/%FF',
      `/api/labels/${labelId}/messages/%C0`,
    ]) {
      const response = await send('GET', path);
      expect([path, response.status, response.body]).toEqual([
        path,
        400,
        { error: 'the path is not valid percent-encoded UTF-8' },
      ]);
    }
  });
});
