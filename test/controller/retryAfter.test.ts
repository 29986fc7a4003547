/**
 * The one place where Crondeck's Kubernetes clients wait and send a request again when the API
 * server asks (src/kube/retryAfter.ts), over real HTTP against a server that answers
 * from a script: what is retried, after how long, how often, and what the caller finally sees.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiException, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { retryingApiClient } from '../../src/kube/retryAfter';

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

interface Seen {
  method: string;
  url: string;
  body: string;
}

const LIST = { apiVersion: 'crondeck.dev/v1alpha1', kind: 'ScheduledJobList', metadata: {}, items: [] };
/** What a real API server answers while the storage of a new CRD initialises. */
const INITIALIZING: Answer = {
  status: 429,
  headers: { 'retry-after': '1' },
  body: {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'storage is (re)initializing',
    reason: 'TooManyRequests',
    details: { retryAfterSeconds: 1 },
    code: 429,
  },
};
const status = (code: number, reason: string, details?: object): Answer => ({
  status: code,
  body: {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: reason,
    reason,
    details,
    code,
  },
});

let server: Server;
let script: Answer[] = [];
let seen: Seen[] = [];
let waits: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body });
      const answer = script.shift() ?? { status: 200, body: LIST };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  script = [];
  seen = [];
  waits = [];
});

function client(maxRetries = 3): CustomObjectsApi {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // Plain HTTP: client-node allows it only with skipTLSVerify.
    clusters: [
      {
        name: 'scripted',
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: 'user', token: 'token' }],
    contexts: [{ name: 'scripted', cluster: 'scripted', user: 'user' }],
    currentContext: 'scripted',
  });
  return retryingApiClient(kc, CustomObjectsApi, {
    maxRetries,
    maxDelayMs: 10_000,
    // The waits are recorded, not slept: the test checks how long the client would wait.
    sleep: async (ms) => void waits.push(ms),
  });
}

const list = (api: CustomObjectsApi) =>
  api.listNamespacedCustomObject({
    group: 'crondeck.dev',
    version: 'v1alpha1',
    namespace: 'jobs',
    plural: 'scheduledjobs',
  });

const create = (api: CustomObjectsApi) =>
  api.createNamespacedCustomObject({
    group: 'crondeck.dev',
    version: 'v1alpha1',
    namespace: 'jobs',
    plural: 'scheduledjobs',
    body: { apiVersion: 'crondeck.dev/v1alpha1', kind: 'ScheduledJob', metadata: { name: 'backup' } },
  });

async function failure(request: Promise<unknown>): Promise<ApiException<string>> {
  try {
    await request;
  } catch (error) {
    if (error instanceof ApiException) return error as ApiException<string>;
    throw error;
  }
  throw new Error('the request succeeded');
}

describe('a request the API server answers with 429', () => {
  it('waits as long as Retry-After says, then sends it again and returns the answer', async () => {
    script = [INITIALIZING, INITIALIZING];
    await expect(list(client())).resolves.toEqual(LIST);
    expect(waits).toEqual([1000, 1000]);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual(
      Array(3).fill('GET /apis/crondeck.dev/v1alpha1/namespaces/jobs/scheduledjobs'),
    );
  });

  it('sends a write again with the same body', async () => {
    script = [INITIALIZING];
    await create(client());
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
    expect(JSON.parse(seen[1]!.body)).toMatchObject({ metadata: { name: 'backup' } });
  });

  it('reads the wait from details.retryAfterSeconds without the header, and waits 1 s without either', async () => {
    script = [status(429, 'TooManyRequests', { retryAfterSeconds: 3 }), status(429, 'TooManyRequests')];
    await list(client());
    expect(waits).toEqual([3000, 1000]);
  });

  it('never waits longer than its bound at a time', async () => {
    script = [{ ...INITIALIZING, headers: { 'retry-after': '120' } }];
    await list(client());
    expect(waits).toEqual([10_000]);
  });

  it('gives up after its retries and hands the last answer to the caller', async () => {
    script = Array(5).fill(INITIALIZING);
    const error = await failure(list(client(3)));
    expect(error.code).toBe(429);
    expect(JSON.parse(error.body)).toMatchObject({
      reason: 'TooManyRequests',
      message: 'storage is (re)initializing',
    });
    expect(seen).toHaveLength(4);
    expect(waits).toEqual([1000, 1000, 1000]);
  });
});

describe('503 and 504', () => {
  it('are sent again when the server says when (Retry-After or retryAfterSeconds)', async () => {
    script = [
      { ...status(503, 'ServiceUnavailable'), headers: { 'retry-after': '2' } },
      status(504, 'Timeout', { retryAfterSeconds: 1 }),
    ];
    await expect(list(client())).resolves.toEqual(LIST);
    expect(waits).toEqual([2000, 1000]);
  });

  it.each([503, 504])('%i without a hint is the answer: no retry', async (code) => {
    script = [status(code, 'ServiceUnavailable')];
    const error = await failure(list(client()));
    expect(error.code).toBe(code);
    expect(JSON.parse(error.body)).toMatchObject({ code });
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});

it.each([
  [409, 'AlreadyExists'],
  [422, 'Invalid'],
  [500, 'InternalError'],
])('%i (%s) is not retried', async (code, reason) => {
  script = [{ ...status(code, reason), headers: { 'retry-after': '1' } }];
  const error = await failure(create(client()));
  expect(error.code).toBe(code);
  expect(seen).toHaveLength(1);
});
