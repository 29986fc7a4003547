import { eventually, startTestService, type TestService } from '../support/service';

const API_TOKEN = 'a-token-of-at-least-16-chars';

/** `GET /api/session` outside the cluster's RBAC (docs/api.md), and namespaces outside Kubernetes mode. */
describe('the API session and namespaces without Kubernetes', () => {
  let open: TestService;
  let guarded: TestService;

  beforeAll(async () => {
    [open, guarded] = await Promise.all([
      startTestService(),
      startTestService({ env: { SERVICE_API_TOKEN: API_TOKEN } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([open?.stop(), guarded?.stop()]);
  });

  it('says the API is open, or behind a token, to no one in particular who may do everything', async () => {
    expect((await open.request('GET', '/api/session')).body).toEqual({
      auth: 'open',
      user: null,
      // Jobs have no namespace outside Kubernetes mode.
      namespaces: [],
      pauseResume: true,
    });
    expect((await guarded.request('GET', '/api/session')).status).toBe(401);
    const session = await guarded.request('GET', '/api/session', undefined, {
      authorization: `Bearer ${API_TOKEN}`,
    });
    expect(session.body).toEqual({ auth: 'token', user: null, namespaces: [], pauseResume: true });
  });

  it('refuses a namespace for a job, and lists no job of any namespace', async () => {
    const created = await open.request('POST', '/api/jobs', {
      name: 'local',
      schedule: '@daily',
      command: 'true',
      namespace: 'team-a',
    });
    expect(created.status).toBe(400);
    expect(created.body.error).toBe(
      'namespace: jobs have a namespace in Kubernetes mode only (SERVICE_RUNTIME=kubernetes)',
    );
    const job = await open.request('POST', '/api/jobs', {
      name: 'local',
      schedule: '@daily',
      command: 'true',
    });
    expect(job.body).toMatchObject({ namespace: null, changedBy: null });
    // Sent back as read, with its namespace (none): taken.
    expect((await open.request('PUT', `/api/jobs/${job.body.id}`, job.body)).status).toBe(200);
    expect((await open.request('GET', '/api/jobs')).body).toHaveLength(1);
    expect((await open.request('GET', '/api/jobs?namespace=team-a')).body).toEqual([]);
    // A run, which the plain list shows (the front door's) and one namespace's does not (the app's).
    expect((await open.request('POST', `/api/jobs/${job.body.id}/run`)).status).toBe(200);
    await eventually(async () => (await open.request('GET', '/api/executions')).body.length === 1);
    expect((await open.request('GET', '/api/executions?namespace=team-a')).body).toEqual([]);
    expect((await open.request('GET', '/api/stats?namespace=team-a')).body).toMatchObject({ totalJobs: 0 });
    const bad = await open.request('GET', '/api/jobs?namespace=Team_A');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^namespace: must be a Kubernetes namespace name/);
  });
});
