import fc from 'fast-check';
import { startTestService, type TestService } from '../support/service';
import { MailboxClient } from './mailboxClient';

/** One row of the spec's error table (section 7), tried with every input listed. */
interface ErrorRow {
  endpoint: string;
  condition: string;
  status: number;
  message: string;
  requests: (ids: Fixture) => [method: string, path: string, body?: unknown][];
}

interface Fixture {
  draft: number;
  label: number;
  otherLabel: number;
}

const SPEC_TABLE: ErrorRow[] = [
  {
    endpoint: 'GET /drafts',
    condition: 'identity_id missing',
    status: 400,
    message: 'identity_id query parameter is required',
    requests: () => [
      ['GET', '/api/drafts'],
      ['GET', '/api/drafts?identity_id='],
      ['GET', '/api/drafts?other=1'],
    ],
  },
  {
    endpoint: 'GET /drafts',
    condition: 'identity_id not finite or below 1',
    status: 400,
    message: 'Invalid identity_id: must be a positive integer',
    requests: () =>
      ['abc', '0', '0.5', '-1', 'Infinity', '-Infinity', 'NaN', '1x', '1&identity_id=2'].map(
        (value): [string, string] => ['GET', `/api/drafts?identity_id=${value}`],
      ),
  },
  {
    endpoint: 'GET/PUT/DELETE /drafts/:id',
    condition: 'no such draft',
    status: 404,
    message: 'Draft not found',
    requests: () => [
      ['GET', '/api/drafts/999999'],
      ['PUT', '/api/drafts/999999', { subject: 'x' }],
      ['DELETE', '/api/drafts/999999'],
    ],
  },
  {
    endpoint: 'POST /drafts',
    condition: 'identity_id missing or falsy',
    status: 400,
    message: 'identity_id is required',
    requests: () =>
      [
        {},
        { identity_id: null },
        { identity_id: 0 },
        { identity_id: '' },
        { identity_id: false },
        { subject: 'x' },
      ].map((body): [string, string, unknown] => ['POST', '/api/drafts', body]),
  },
  {
    endpoint: 'PUT /drafts/:id',
    condition: 'none of the allowed keys present',
    status: 400,
    message: 'No fields to update',
    requests: ({ draft }) =>
      [{}, { identity_id: 5 }, { id: 1, unknown: 'x' }].map((body): [string, string, unknown] => [
        'PUT',
        `/api/drafts/${draft}`,
        body,
      ]),
  },
  {
    endpoint: 'POST /api/labels',
    condition: 'name missing or falsy',
    status: 400,
    message: 'name is required',
    requests: () =>
      [{}, { name: null }, { name: '' }, { name: 0 }, { name: false }, { name: '   ' }, { color: 'red' }].map(
        (body): [string, string, unknown] => ['POST', '/api/labels', body],
      ),
  },
  {
    endpoint: 'POST /api/labels',
    condition: 'name already exists',
    status: 409,
    message: 'Label already exists',
    requests: () => [['POST', '/api/labels', { name: 'taken' }]],
  },
  {
    endpoint: 'PUT /api/labels/:labelId',
    condition: 'none of name, color, icon present',
    status: 400,
    message: 'No fields to update',
    requests: ({ label }) =>
      [{}, { source: 'imap' }, { id: 3 }].map((body): [string, string, unknown] => [
        'PUT',
        `/api/labels/${label}`,
        body,
      ]),
  },
  {
    endpoint: 'PUT/DELETE /api/labels/:labelId',
    condition: 'no such label',
    status: 404,
    message: 'Label not found',
    requests: () => [
      ['PUT', '/api/labels/999999', { name: 'x' }],
      ['DELETE', '/api/labels/999999'],
    ],
  },
  {
    endpoint: 'filter endpoints',
    condition: 'ids missing',
    status: 400,
    message: 'ids query parameter is required',
    requests: () =>
      ['/api/labels/filter', '/api/labels/filter/count', '/api/labels/filter/related'].flatMap((path) => [
        ['GET', path] as [string, string],
        ['GET', `${path}?ids=`] as [string, string],
        ['GET', `${path}?limit=5`] as [string, string],
      ]),
  },
  {
    endpoint: 'filter endpoints',
    condition: 'no valid id after filtering',
    status: 400,
    message: 'At least one valid label ID is required',
    requests: () =>
      ['/api/labels/filter', '/api/labels/filter/count', '/api/labels/filter/related'].flatMap((path) =>
        ['abc', '0', '-1,-2', ',,', '1.5', '%20'].map((ids): [string, string] => [
          'GET',
          `${path}?ids=${ids}`,
        ]),
      ),
  },
];

describe('errors of the mailbox API', () => {
  let service: TestService;
  let api: MailboxClient;
  let fixture: Fixture;
  beforeAll(async () => {
    service = await startTestService();
    api = new MailboxClient(service);
    fixture = {
      draft: await api.createDraft({ subject: 'kept' }),
      label: await api.createLabel('taken'),
      otherLabel: await api.createLabel('other'),
    };
  });
  afterAll(async () => {
    await service.stop();
  });

  describe('every row of the spec table (section 7)', () => {
    for (const row of SPEC_TABLE) {
      it(`${row.endpoint}: ${row.condition} → ${row.status} ${row.message}`, async () => {
        for (const [method, path, body] of row.requests(fixture)) {
          const response = await service.request(method, path, body);
          expect({
            request: `${method} ${path} ${JSON.stringify(body)}`,
            status: response.status,
            body: response.body,
          }).toEqual({
            request: `${method} ${path} ${JSON.stringify(body)}`,
            status: row.status,
            body: { error: row.message },
          });
        }
      });
    }

    it('left everything as it was', async () => {
      expect((await api.get(`/api/drafts/${fixture.draft}`)).body.subject).toBe('kept');
      const names = (await api.get('/api/labels')).body.map((label: { name: string }) => label.name);
      expect(names).toEqual(['other', 'taken']);
    });
  });

  describe('non-integer path ids: 400 naming the parameter', () => {
    const routes: [string, (id: string) => string, unknown?][] = [
      ['GET', (id) => `/api/drafts/${id}`],
      ['PUT', (id) => `/api/drafts/${id}`, { subject: 'x' }],
      ['DELETE', (id) => `/api/drafts/${id}`],
      ['PUT', (id) => `/api/labels/${id}`, { name: 'x' }],
      ['DELETE', (id) => `/api/labels/${id}`],
      ['GET', (id) => `/api/labels/${id}/related`],
      ['GET', (id) => `/api/labels/${id}/messages`],
      ['GET', (id) => `/api/messages/${id}`],
      ['PUT', (id) => `/api/labels/${id}/messages/1`],
      ['DELETE', (id) => `/api/labels/1/messages/${id}`],
    ];
    for (const [method, path, body] of routes) {
      it(`${method} ${path(':id')}`, async () => {
        for (const id of ['abc', '1.5', '0', '-1', '2147483648', '1e3', '%20']) {
          const response = await service.request(method, path(id), body);
          expect(response.status).toBe(400);
          expect(response.body.error).toMatch(/^(id|labelId|messageId): must be a positive integer$/);
        }
      });
    }
  });

  describe('pagination of message lists', () => {
    const lists = (query: string) => [`/api/labels/filter?ids=1&${query}`, `/api/labels/1/messages?${query}`];
    it('rejects a limit that is not an integer from 1 to 500', async () => {
      for (const limit of ['0', '501', 'abc', '1.5', '-1', '', '1e2']) {
        for (const path of lists(`limit=${limit}`)) {
          expect((await api.expect(400, 'GET', path)).body).toEqual({
            error: 'limit: must be an integer from 1 to 500',
          });
        }
      }
      for (const path of lists('limit=5&limit=6')) {
        expect((await api.expect(400, 'GET', path)).body).toEqual({ error: 'limit: may be given only once' });
      }
    });

    it('rejects an offset that is negative or not an integer', async () => {
      for (const offset of ['-1', 'abc', '1.5', '']) {
        for (const path of lists(`offset=${offset}`)) {
          expect((await api.expect(400, 'GET', path)).body).toEqual({
            error: 'offset: must be a non-negative integer',
          });
        }
      }
      for (const path of lists('offset=2147483648')) {
        expect((await api.expect(400, 'GET', path)).body).toEqual({
          error: 'offset: must be at most 2147483647',
        });
      }
    });

    it('accepts the bounds', async () => {
      for (const query of ['limit=1', 'limit=500', 'offset=0', 'offset=2147483647', 'limit=500&offset=10']) {
        for (const path of lists(query)) await api.expect(200, 'GET', path);
      }
    });
  });

  describe('arbitrary input never causes a 500', () => {
    const bodies = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(
        fc.constantFrom(
          'identity_id',
          'name',
          'subject',
          'flags',
          'date',
          'uid',
          'compose_mode',
          'text_body',
          'color',
        ),
        fc.jsonValue(),
      ),
    );
    const routes: [string, string][] = [
      ['POST', '/api/drafts'],
      ['PUT', '/api/drafts/1'],
      ['POST', '/api/labels'],
      ['PUT', '/api/labels/1'],
      ['POST', '/api/messages'],
    ];

    it('in JSON bodies', async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...routes), bodies, async ([method, path], body) => {
          const response = await service.request(method, path, JSON.stringify(body), {
            'content-type': 'application/json',
          });
          expect(response.status).toBeLessThan(500);
        }),
        { numRuns: 150 },
      );
    });

    it('in query strings', async () => {
      const paths = [
        '/api/drafts',
        '/api/labels/filter',
        '/api/labels/filter/count',
        '/api/labels/filter/related',
        '/api/labels/1/related',
        '/api/labels/1/messages',
      ];
      const value = fc.oneof(fc.string(), fc.integer().map(String), fc.string({ unit: 'grapheme' }));
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...paths),
          fc.dictionary(fc.constantFrom('identity_id', 'ids', 'limit', 'offset'), value),
          async (path, query) => {
            const response = await service.request('GET', `${path}?${new URLSearchParams(query)}`);
            expect(response.status).toBeLessThan(500);
          },
        ),
        { numRuns: 150 },
      );
    });
  });
});
