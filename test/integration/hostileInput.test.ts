import fc from 'fast-check';
import { eventually, startTestService, type TestService } from '../support/service';

/**
 * Every route gets what a hostile or broken client sends: NUL, invalid UTF-8, lone surrogates,
 * huge numbers, values of the wrong type, repeated parameters, wrong content types and raw bytes.
 * Whatever it is, the answer is a 4xx naming the problem or a success with the data stored as
 * sent; never a 5xx, a stack trace or SQL; no run is left `running`; the service stays healthy.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Answer {
  status: number;
  text: string;
}

/** Text that must never reach a client: a stack frame, SQL, a driver's or Postgres' own words. */
const LEAKS =
  /\n\s+at |\bat .+:\d+:\d+\)|\b(SELECT|INSERT INTO|DELETE FROM|UPDATE \w+ SET)\b|syntax error|invalid byte sequence|violates|relation "|column "|unsupported Unicode|internal error/i;

/** JSON values, each a way of being wrong for some field; every field gets each of them. */
const HOSTILE_VALUES: Json[] = [
  'a\u0000b',
  'x\udfffy',
  'http://example.com/\ud800',
  'x'.repeat(70_000),
  1e308,
  2147483648,
  -1,
  null,
  ['\u0000'],
  { '\u0000': '\u0000' },
];

/** More of the same, drawn at random by the property-based part. */
const MORE_HOSTILE_VALUES: Json[] = [
  '\u0000',
  '\ud800',
  '\ufffd\u202e\u2400',
  '',
  ' ',
  -1e308,
  2 ** 53 + 1,
  4294967296,
  0.5,
  true,
  [],
];

/** Query and path values as raw bytes, percent-encoded: NUL, bad UTF-8, a UTF-8-encoded surrogate. */
const HOSTILE_QUERY_VALUES = [
  '%00',
  'a%00b',
  '%FF%FE',
  '%ED%A0%80',
  '%C0%80',
  '99999999999999999999',
  '1e400',
  '-1',
  '',
  '%E2%80%AE',
  'x'.repeat(3000),
  '%',
];

/** Bodies as bytes: not UTF-8, NUL raw and escaped, numbers JSON cannot write, scalars. */
const RAW_JSON_BODIES: (string | Uint8Array)[] = [
  Uint8Array.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // {"name":"\xff\xfe"}
  Uint8Array.from([0xff, 0xfe, 0x00, 0x7b]),
  Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x00, 0x22, 0x7d]), // a raw NUL in a string
  Uint8Array.from([0x22, 0xed, 0xa0, 0x80, 0x22]), // a surrogate encoded as UTF-8
  '{"name":"n\\u0000","schedule":"@daily","command":"true"}',
  '{"identity_id":1,"subject":"\\ud800"}',
  '{"timeout":1e400,"identity_id":1e400}',
  '{"identity_id":1,"uid":18446744073709551616}',
  '42',
  'null',
  '"text"',
  '[]',
  '',
  '{',
  '{"__proto__":{"x":1},"constructor":{"prototype":{}}}',
];

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'message/rfc822',
  'x',
];

const RFC822_SOURCES: (string | Uint8Array)[] = [
  'Subject: =?utf-8?Q?a=00b?=\r\nFrom: =?utf-8?B?AA==?= <a\u0000@x>\r\n\r\nbody\u0000\r\n',
  Uint8Array.from([
    ...Buffer.from('Subject: '),
    0xff,
    0xfe,
    0x00,
    ...Buffer.from('\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n'),
    0xed,
    0xa0,
    0x80,
    0x00,
    0xc0,
    0x80,
  ]),
  'Content-Type: text/plain; charset=utf-16le\r\n\r\n' + 'a\u0000'.repeat(10),
  'Content-Type: text/html\r\n\r\n<p>\u0000&#0;&#xD800;</p>',
  '\u0000\u0000\u0000',
  'Date: Tue, 1 Jan 275760 00:00:00 +0000\r\nMessage-ID: <\u0000>\r\n\r\nx',
];

describe('hostile input on every route', () => {
  let service: TestService;
  const ids = { job: 0, runJob: 0, draft: 0, label: 0, message: 0, execution: 0 };
  let counter = 0;
  const unique = (prefix: string) => `${prefix}-${++counter}`;

  beforeAll(async () => {
    service = await startTestService();
    const create = async (path: string, body: Json) => {
      const response = await service.request('POST', path, body);
      expect(response.status).toBe(201);
      return response.body.id as number;
    };
    ids.job = await create('/api/jobs', { name: 'target', schedule: '@daily', command: 'true' });
    // Runs by hand during the sweep: prints what text cannot hold, fails, and is retried once.
    ids.runJob = await create('/api/jobs', {
      name: 'binary',
      schedule: '@daily',
      command: "printf 'a\\000b\\377'; exit 1",
      retry: { maxAttempts: 1, baseDelay: 0 },
    });
    ids.draft = await create('/api/drafts', { identity_id: 1, subject: 'draft' });
    ids.label = await create('/api/labels', { name: 'label' });
    ids.message = await create('/api/messages', { identity_id: 1, subject: 'message' });
    await service.request('POST', `/api/jobs/${ids.runJob}/run`);
    await service.local.idle();
    ids.execution = (await service.request('GET', '/api/executions?limit=1')).body[0].id;
  });
  afterAll(async () => {
    await service.stop();
  });

  async function send(
    method: string,
    path: string,
    body?: string | Uint8Array,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const response = await fetch(service.url + path, { method, body, headers });
    return { status: response.status, text: await response.text() };
  }

  function expectSane(answer: Answer, what: string): void {
    if (answer.status >= 500 || LEAKS.test(answer.text)) {
      throw new Error(`${what}: answered ${answer.status} ${answer.text.slice(0, 300)}`);
    }
  }

  /** Routes with a JSON body: a valid body, and the paths of its fields that the sweep replaces. */
  const bodyRoutes = (): { method: string; path: string; body: () => Json; fields: string[] }[] => [
    {
      method: 'POST',
      path: '/api/jobs',
      body: () => ({ name: unique('job'), schedule: '@daily', command: 'true' }),
      fields: [
        'name',
        'schedule',
        'command',
        'timeout',
        'retry',
        'retry.maxAttempts',
        'retry.baseDelay',
      ].concat(['description', 'tags', 'tags.0', 'timezone', 'enabled', 'id', '\u0000']),
    },
    {
      method: 'PUT',
      path: `/api/jobs/${ids.job}`,
      body: () => ({ name: 'target', schedule: '@daily', command: 'true', tags: ['t'] }),
      fields: ['name', 'command', 'description', 'tags.0', 'timezone', 'lastStatus'],
    },
    {
      method: 'PATCH',
      path: `/api/jobs/${ids.job}/toggle`,
      body: () => ({ enabled: true }),
      fields: ['enabled'],
    },
    { method: 'POST', path: `/api/jobs/${ids.runJob}/run`, body: () => ({}), fields: ['x'] },
    {
      method: 'PUT',
      path: `/api/jobs/${ids.job}/alerts`,
      body: () => ({
        webhooks: [{ url: 'http://127.0.0.1:9/hook', events: ['failed'] }],
        emails: [{ to: ['ops@example.com'], events: ['failed'] }],
      }),
      fields: [
        'webhooks',
        'webhooks.0',
        'webhooks.0.url',
        'webhooks.0.events.0',
        'emails.0.to.0',
        'emails.0.events',
      ],
    },
    {
      method: 'POST',
      path: '/api/scheduler/pause',
      body: () => ({ until: '2099-01-01T00:00:00Z' }),
      fields: ['until'],
    },
    { method: 'POST', path: '/api/scheduler/resume', body: () => ({}), fields: ['x'] },
    {
      method: 'POST',
      path: '/api/drafts',
      body: () => ({ identity_id: 1 }),
      fields: ['identity_id', 'to_addresses', 'subject', 'text_body', 'html_body', 'references'].concat([
        'original_message_id',
        'compose_mode',
      ]),
    },
    {
      method: 'PUT',
      path: `/api/drafts/${ids.draft}`,
      body: () => ({ subject: 's' }),
      fields: ['subject', 'cc_addresses', 'in_reply_to', 'compose_mode', 'original_message_id'],
    },
    {
      method: 'POST',
      path: '/api/labels',
      body: () => ({ name: unique('label') }),
      fields: ['name', 'color', 'icon', 'source'],
    },
    {
      method: 'PUT',
      path: `/api/labels/${ids.label}`,
      body: () => ({ color: 'red' }),
      fields: ['name', 'color', 'icon'],
    },
    {
      method: 'POST',
      path: '/api/messages',
      body: () => ({ identity_id: 1 }),
      fields: [
        'identity_id',
        'uid',
        'message_id',
        'in_reply_to',
        'subject',
        'from_address',
        'from_name',
      ].concat(['to_addresses', 'date', 'flags', 'flags.0', 'size', 'has_attachments', 'text_body']),
    },
  ];

  /** Routes read with a query, and the parameters each one takes. */
  const queryRoutes = (): { path: string; params: string[] }[] => [
    { path: '/api/executions', params: ['jobId', 'status', 'limit'] },
    { path: '/api/cron/describe', params: ['expr', 'timezone'] },
    { path: '/api/drafts', params: ['identity_id'] },
    { path: '/api/labels/filter', params: ['ids', 'limit', 'offset'] },
    { path: '/api/labels/filter/count', params: ['ids'] },
    { path: '/api/labels/filter/related', params: ['ids', 'limit'] },
    { path: `/api/labels/${ids.label}/related`, params: ['limit'] },
    { path: `/api/labels/${ids.label}/messages`, params: ['limit', 'offset'] },
    { path: '/api/messages', params: ['identity_id', 'uid', 'flags'] },
  ];

  /** Paths with an id, each with `{id}` where a hostile path segment goes. */
  const idPaths = [
    ['GET', '/api/jobs/{id}'],
    ['PUT', '/api/jobs/{id}'],
    ['DELETE', '/api/jobs/{id}'],
    ['PATCH', '/api/jobs/{id}/toggle'],
    ['POST', '/api/jobs/{id}/run'],
    ['GET', '/api/jobs/{id}/alerts'],
    ['DELETE', '/api/jobs/{id}/alerts'],
    ['GET', '/api/executions/{id}'],
    ['GET', '/api/drafts/{id}'],
    ['DELETE', '/api/drafts/{id}'],
    ['GET', '/api/labels/{id}/messages'],
    ['PUT', '/api/labels/{id}/messages/{id}'],
    ['DELETE', '/api/labels/{id}'],
    ['GET', '/api/messages/{id}'],
  ];

  const plainGets = [
    '/health',
    '/metrics',
    '/api/jobs',
    '/api/stats',
    '/api/scheduler/status',
    '/api/labels',
    `/api/jobs/${ids.job}`,
    `/api/executions/${ids.execution}`,
  ];

  function withField(body: Json, path: string, value: Json): Json {
    const copy = structuredClone(body) as { [key: string]: Json };
    const keys = path.split('.');
    let node: { [key: string]: Json } = copy;
    for (const key of keys.slice(0, -1)) {
      if (typeof node[key] !== 'object' || node[key] === null) node[key] = /^\d+$/.test(key) ? [] : {};
      node = node[key] as { [key: string]: Json };
    }
    node[keys.at(-1)!] = value;
    return copy;
  }

  it('answers every field of every JSON body, set to each hostile value, without a 5xx', async () => {
    for (const route of bodyRoutes()) {
      for (const field of route.fields) {
        for (const value of HOSTILE_VALUES) {
          const body = JSON.stringify(withField(route.body(), field, value));
          const answer = await send(route.method, route.path, body, { 'content-type': 'application/json' });
          expectSane(answer, `${route.method} ${route.path} ${field}=${JSON.stringify(value).slice(0, 40)}`);
        }
      }
    }
  });

  it('answers hostile query values, repeated parameters, path ids and raw bodies without a 5xx', async () => {
    for (const route of queryRoutes()) {
      const method = route.path === '/api/messages' ? 'POST' : 'GET';
      const extra = method === 'POST' ? { 'content-type': 'message/rfc822' } : undefined;
      const body = method === 'POST' ? 'Subject: s\r\n\r\nx' : undefined;
      for (const param of route.params) {
        for (const value of HOSTILE_QUERY_VALUES) {
          const path = `${route.path}?identity_id=1&ids=${ids.label}&${param}=${value}`;
          expectSane(await send(method, path, body, extra), `${method} ${path.slice(0, 80)}`);
        }
        const repeated = `${route.path}?identity_id=1&ids=${ids.label}&${param}=1&${param}=2`;
        expectSane(await send(method, repeated, body, extra), `${method} ${repeated}`);
      }
    }
    for (const [method, template] of idPaths) {
      for (const value of [...HOSTILE_QUERY_VALUES, '0', '2147483648', '9'.repeat(400)]) {
        if (value === '' || value === '%') continue;
        const path = template!.replaceAll('{id}', value);
        expectSane(await send(method!, path), `${method} ${path.slice(0, 80)}`);
      }
    }
    for (const path of plainGets) {
      expectSane(await send('GET', `${path}?x=%00&x=%FF&limit=%ED%A0%80`), `GET ${path}`);
    }
    for (const route of bodyRoutes()) {
      for (const body of RAW_JSON_BODIES) {
        const answer = await send(route.method, route.path, body, { 'content-type': 'application/json' });
        expectSane(answer, `${route.method} ${route.path} raw ${String(body).slice(0, 40)}`);
      }
      for (const type of CONTENT_TYPES) {
        const answer = await send(route.method, route.path, JSON.stringify(route.body()), {
          'content-type': type,
        });
        expectSane(answer, `${route.method} ${route.path} as ${type}`);
      }
    }
    const headers: Record<string, string>[] = [
      { authorization: 'Bearer \u00ff\u00fe' },
      { authorization: 'x'.repeat(8000) },
      { 'content-type': 'application/json; charset="\u00ff"' },
      { 'content-type': 'application/json; charset=utf-8; charset=latin1' },
      { accept: '\u00ff/\u00fe', 'accept-charset': '\u00ff', 'x-forwarded-for': '\u00ff' },
      { 'if-none-match': '"\u00ff"', origin: 'http://\u00ff' },
    ];
    for (const route of bodyRoutes()) {
      for (const extra of headers) {
        const body = JSON.stringify(route.body());
        const answer = await send(route.method, route.path, body, {
          'content-type': 'application/json',
          ...extra,
        })
          // Refused by the client itself (a header the fetch API will not send): nothing to test.
          .catch((error: Error) => ({ status: 0, text: error.message }));
        expectSane(answer, `${route.method} ${route.path} with ${JSON.stringify(extra)}`);
      }
    }
    for (const source of RFC822_SOURCES) {
      const answer = await send('POST', '/api/messages?identity_id=1', source, {
        'content-type': 'message/rfc822',
      });
      expectSane(answer, `rfc822 ${String(source).slice(0, 40)}`);
    }
  });

  it('answers random strings and bytes in any field, query or body without a 5xx', async () => {
    const routes = bodyRoutes();
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({
        unit: fc.constantFrom('\u0000', '\ud800', '\udc00', 'a', '\ufffd', '"', '\\'),
        maxLength: 8,
      }),
    );
    const value: fc.Arbitrary<Json> = fc.oneof(
      text,
      fc.double(),
      fc.integer(),
      fc.constantFrom<Json>(...HOSTILE_VALUES, ...MORE_HOSTILE_VALUES),
      fc.array(text, { maxLength: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat(routes.length - 1),
        fc.nat(20),
        value,
        async (routeIndex, fieldIndex, fieldValue) => {
          const route = routes[routeIndex]!;
          const field = route.fields[fieldIndex % route.fields.length]!;
          const body = JSON.stringify(withField(route.body(), field, fieldValue));
          const answer = await send(route.method, route.path, body, { 'content-type': 'application/json' });
          expectSane(answer, `${route.method} ${route.path} ${field}=${JSON.stringify(fieldValue)}`);
        },
      ),
      { numRuns: 80 },
    );
    const queries = queryRoutes().filter((route) => route.path !== '/api/messages');
    await fc.assert(
      fc.asyncProperty(
        fc.nat(queries.length - 1),
        fc.uint8Array({ maxLength: 12 }),
        async (routeIndex, bytes) => {
          const route = queries[routeIndex]!;
          const encoded = [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
          const query = route.params.map((param) => `${param}=${encoded}`).join('&');
          expectSane(await send('GET', `${route.path}?${query}`), `GET ${route.path}?${query}`);
        },
      ),
      { numRuns: 40 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat(routes.length - 1),
        fc.uint8Array({ maxLength: 64 }),
        fc.constantFrom('application/json', 'message/rfc822', ...CONTENT_TYPES),
        async (routeIndex, bytes, type) => {
          const route = routes[routeIndex]!;
          const answer = await send(route.method, route.path, bytes, { 'content-type': type });
          expectSane(
            answer,
            `${route.method} ${route.path} ${type} bytes ${Buffer.from(bytes).toString('hex')}`,
          );
        },
      ),
      { numRuns: 50 },
    );
  });

  it('leaves no run unrecorded, counts every attempt, and stays healthy', async () => {
    await service.request('POST', '/api/scheduler/resume');
    await service.local.idle();
    const { rows } = await service.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM executions WHERE status = 'running'",
    );
    expect(rows[0]!.n).toBe(0);
    const attempts = (await service.request('GET', `/api/executions?jobId=${ids.runJob}&limit=1000`)).body;
    // Every run made two attempts (one retry); each is recorded as failed, with its output.
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts.length % 2).toBe(0);
    expect(attempts.every((e: { status: string }) => e.status === 'failed')).toBe(true);
    const detail = (await service.request('GET', `/api/executions/${attempts[0].id}`)).body;
    expect(detail.stdout).toBe('a\u2400b\ufffd');
    const metrics = (await send('GET', '/metrics')).text;
    const failed = Number(/^service_executions_total\{status="failed"\} (\d+)$/m.exec(metrics)![1]);
    expect(failed).toBeGreaterThanOrEqual(attempts.length);
    await eventually(async () => (await send('GET', '/health')).status === 200);
  });
});
