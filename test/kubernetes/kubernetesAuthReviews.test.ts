import type { RunningService } from '../../src/service';
import type { Database } from '../../src/store/database';
import { createTestDatabase, onPostgresServer } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import type { ApiServerProxy } from './apiServerProxy';
import { startCluster, until } from './cluster';
import {
  asAdmin,
  callAs,
  grantRole,
  NAMESPACE_A,
  type Person,
  type RbacCluster,
  serveWithKubernetesAuth,
  serviceAccountToken,
  setUpPeople,
} from './rbacCluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const READER_RULES = [{ apiGroups: ['crondeck.dev'], resources: ['scheduledjobs'], verbs: ['get', 'list'] }];

/**
 * The reviews behind SERVICE_AUTH=kubernetes: kept briefly (one review per user and question per
 * TTL, a removed RoleBinding effective after it), and a 503 naming the API server, never a pass,
 * when it is slow or down. Each test starts a service of its own, its caches empty.
 */
const describeOnPostgres = onPostgresServer ? describe : describe.skip;

describeOnPostgres('the cluster reviews behind SERVICE_AUTH=kubernetes', () => {
  let emu: KubeEmulator;
  let db: Database;
  let people: RbacCluster;
  /** The emulated cluster's clock runs this far ahead of the wall clock (token expiry). */
  let clockAheadMs = 0;
  let running: { service: RunningService; proxy: ApiServerProxy } | null = null;
  let jobId: number;

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ emu } = await startCluster({ now: () => new Date(Date.now() + clockAheadMs) }));
    people = await setUpPeople(emu);
    const { service, proxy } = await serveWithKubernetesAuth(emu, db, people.service);
    try {
      const created = await callAs(service.url, people.editor, 'POST', '/api/jobs', {
        name: 'polled',
        schedule: '0 3 * * *',
        command: 'true',
      });
      expect(created.status).toBe(201);
      jobId = created.body.id;
    } finally {
      await service.stop();
      await proxy.stop();
    }
  }, 120_000);

  afterEach(async () => {
    await running?.service.stop();
    await running?.proxy.stop();
    running = null;
  });

  afterAll(async () => {
    await emu?.stop();
    await db?.close();
  });

  const serve = async (env: Record<string, string>) => {
    running = await serveWithKubernetesAuth(emu, db, people.service, env);
    return running;
  };
  const call = (person: Person, method: string, path: string, body?: unknown) =>
    callAs(running!.service.url, person, method, path, body);
  /** A new token of one of the people: one the service has never reviewed. */
  const freshToken = async (name: string): Promise<Person> => serviceAccountToken(emu, 'people', name);

  it('polling a read costs one TokenReview and one SubjectAccessReview per TTL', async () => {
    const { proxy } = await serve({ SERVICE_AUTH_CACHE_SECONDS: '60' });
    const viewer = await freshToken('viewer');
    for (let i = 0; i < 20; i++) expect((await call(viewer, 'GET', `/api/jobs/${jobId}`)).status).toBe(200);
    expect(proxy.reviews('tokenreviews')).toHaveLength(1);
    expect(proxy.reviews('subjectaccessreviews')).toHaveLength(1);
    // The list: `list scheduledjobs`, and `list cronjobs` (watched CronJobs' jobs), everywhere
    // (denied) and in the one namespace with jobs, once each.
    for (let i = 0; i < 20; i++) expect((await call(viewer, 'GET', '/api/jobs')).status).toBe(200);
    expect(proxy.reviews('tokenreviews')).toHaveLength(1);
    expect(proxy.reviews('subjectaccessreviews')).toHaveLength(5);
    // Requests that arrive together with a token not reviewed yet share one review.
    const again = await freshToken('viewer');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call(again, 'GET', `/api/jobs/${jobId}`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(proxy.reviews('tokenreviews')).toHaveLength(2);
  });

  it('a removed RoleBinding takes effect once the TTL has passed, and a new one too', async () => {
    await serve({ SERVICE_AUTH_CACHE_SECONDS: '1' });
    const reader = await freshToken('reader');
    const binding = await grantRole(emu, NAMESPACE_A, 'reader', READER_RULES, 'reader');
    expect((await call(reader, 'GET', `/api/jobs/${jobId}`)).status).toBe(200);
    await asAdmin(
      emu,
      'DELETE',
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE_A}/rolebindings/${binding}`,
    );
    await until(async () => (await call(reader, 'GET', `/api/jobs/${jobId}`)).status === 403, 'the 403');
    expect((await call(reader, 'GET', '/api/jobs')).status).toBe(403);
    // Refusals are kept as briefly: a binding made again lets them in after the TTL.
    await asAdmin(emu, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE_A}/rolebindings`, {
      metadata: { name: binding },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'people' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    });
    await until(
      async () => (await call(reader, 'GET', `/api/jobs/${jobId}`)).status === 200,
      'the 200 again',
    );
  });

  describe('an API server that is slow or down', () => {
    const jobs = async () =>
      (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs')).rows[0]!.n;

    it('answers 503 naming it when a review takes longer than the timeout, and keeps nothing of it', async () => {
      const { proxy } = await serve({
        SERVICE_AUTH_REVIEW_TIMEOUT_MS: '300',
        SERVICE_AUTH_CACHE_SECONDS: '60',
      });
      const editor = await freshToken('editor');
      proxy.fault = 'hang';
      const before = await jobs();
      const creation = await call(editor, 'POST', '/api/jobs', {
        name: 'never',
        schedule: '@daily',
        command: 'true',
      });
      expect(creation.status).toBe(503);
      expect(creation.headers.get('retry-after')).toBe('5');
      expect(creation.body.error).toBe(
        "the cluster's API server could not review the request (TokenReview: no answer within 300 ms); try again shortly",
      );
      expect(await jobs()).toBe(before);
      // The token reviewed, the question not: the SubjectAccessReview's wait is a 503 as well.
      proxy.fault = 'none';
      expect((await call(editor, 'GET', `/api/jobs/${jobId}`)).status).toBe(200);
      proxy.fault = 'hang';
      const question = await call(editor, 'POST', '/api/jobs', {
        name: 'never',
        schedule: '@daily',
        command: 'true',
      });
      expect(question).toMatchObject({
        status: 503,
        body: {
          error:
            "the cluster's API server could not review the request (SubjectAccessReview: no answer within 300 ms); try again shortly",
        },
      });
      expect(await jobs()).toBe(before);
      proxy.releaseHeld();
      // Nothing was kept of the failures: the same requests pass once the API server answers.
      proxy.fault = 'none';
      const created = await call(editor, 'POST', '/api/jobs', {
        name: 'later',
        schedule: '@daily',
        command: 'true',
      });
      expect(created.status).toBe(201);
      expect((await call(editor, 'DELETE', `/api/jobs/${created.body.id}`)).status).toBe(200);
    });

    it.each([
      ['refuses the connection', 'refuse', /\(TokenReview: (ECONNRESET|socket hang up|.*reset.*)\)/i],
      ['answers 500', 'error', /\(TokenReview: it answered 500\)/],
    ] as const)('answers 503 naming it when it %s', async (_what, fault, reason) => {
      const { proxy } = await serve({});
      proxy.fault = fault;
      const answer = await call(await freshToken('viewer'), 'GET', `/api/jobs/${jobId}`);
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatch(/^the cluster's API server could not review the request/);
      expect(answer.body.error).toMatch(reason);
    });

    it('answers 503 when it cannot be reached at all', async () => {
      const { proxy } = await serve({});
      const viewer = await freshToken('viewer');
      await proxy.stop();
      const answer = await call(viewer, 'GET', '/api/jobs');
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatch(
        /^the cluster's API server could not review the request \(TokenReview: /,
      );
    });
  });

  it('a token for another audience is a 401: the API server does not accept it for itself', async () => {
    await serve({});
    const { token } = await emu.serviceAccountToken('people', 'viewer', { audiences: ['vault'] });
    const answer = await callAs(
      running!.service.url,
      { username: 'system:serviceaccount:people:viewer', token },
      'GET',
      `/api/jobs/${jobId}`,
    );
    expect(answer.status).toBe(401);
    expect(answer.body.error).toMatch(/did not accept the bearer token/);
  });

  it('a token of a ServiceAccount deleted since is a 401, cached decisions or not after the TTL', async () => {
    await serve({ SERVICE_AUTH_CACHE_SECONDS: '1' });
    const leaving = await serviceAccountToken(emu, 'people', 'leaving');
    await grantRole(emu, NAMESPACE_A, 'leaving', READER_RULES, 'leaving');
    expect((await call(leaving, 'GET', `/api/jobs/${jobId}`)).status).toBe(200);
    await asAdmin(emu, 'DELETE', '/api/v1/namespaces/people/serviceaccounts/leaving');
    await until(async () => (await call(leaving, 'GET', `/api/jobs/${jobId}`)).status === 401, 'the 401');
  });

  it('an expired token is a 401 once the TTL has passed', async () => {
    await serve({ SERVICE_AUTH_CACHE_SECONDS: '1' });
    const viewer = await freshToken('viewer');
    expect((await call(viewer, 'GET', `/api/jobs/${jobId}`)).status).toBe(200);
    // An hour and more later on the cluster's clock (the token lasts an hour, and a minute's leeway).
    clockAheadMs = 2 * 3600_000;
    try {
      const review = await asAdmin(emu, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
        spec: { token: viewer.token },
      });
      // An emulator whose tokens do not expire has nothing to show here.
      if ((review as Obj).status?.authenticated) return;
      await until(async () => (await call(viewer, 'GET', `/api/jobs/${jobId}`)).status === 401, 'the 401');
    } finally {
      clockAheadMs = 0;
    }
  });
});
