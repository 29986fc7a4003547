import type { RunningService } from '../../src/service';
import type { Database } from '../../src/store/database';
import { reportTokenFor } from '../../src/domain/reportToken';
import { createTestDatabase, onPostgresServer } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { RawConnection } from '../support/rawHttp';
import type { ApiServerProxy } from './apiServerProxy';
import { REPORT_SECRET, runController, serveOnCluster, startCluster, until } from './cluster';
import { slotRunJob } from '../../src/kube/resources/slotRunJob';
import {
  asAdmin,
  callAs,
  NAMESPACE_A,
  NAMESPACE_B,
  type Person,
  type RbacCluster,
  serveWithKubernetesAuth,
  setUpPeople,
} from './rbacCluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * SERVICE_AUTH=kubernetes (issue 39): the cluster's RBAC decides who may see and run which jobs,
 * through real HTTP, against the emulated API server (TokenReview, SubjectAccessReview, RBAC over
 * stored Roles), with the service running as a ServiceAccount that holds only what docs/security.md
 * lists. Needs a PostgreSQL server (DATABASE_URL), as every test of Kubernetes mode.
 */
const describeOnPostgres = onPostgresServer ? describe : describe.skip;

describeOnPostgres('Kubernetes RBAC on the REST API', () => {
  let emu: KubeEmulator;
  let kc: Awaited<ReturnType<typeof startCluster>>['kc'];
  let db: Database;
  let people: RbacCluster;
  let controller: Awaited<ReturnType<typeof runController>>;
  let service: RunningService;
  let proxy: ApiServerProxy;
  /** The job in namespace A (the service's own), made by the editor; the one in B, by the admin. */
  let jobA: Obj;
  let jobB: Obj;

  const call = (person: Person | { authorization?: string }, method: string, path: string, body?: unknown) =>
    callAs(service.url, person, method, path, body);

  beforeAll(async () => {
    db = await createTestDatabase();
    const cluster = await startCluster();
    ({ emu, kc } = cluster);
    people = await setUpPeople(emu);
    controller = await runController(cluster.kc, db);
    ({ service, proxy } = await serveWithKubernetesAuth(emu, db, people.service, {
      SERVICE_AUTH_CACHE_SECONDS: '60',
    }));
    const createdA = await call(people.editor, 'POST', '/api/jobs', {
      name: 'nightly',
      schedule: '0 3 * * *',
      command: 'true',
    });
    expect(createdA).toMatchObject({ status: 201 });
    jobA = createdA.body;
    const createdB = await call(people.admin, 'POST', '/api/jobs', {
      name: 'report',
      schedule: '0 4 * * *',
      command: 'true',
      namespace: NAMESPACE_B,
    });
    expect(createdB).toMatchObject({ status: 201 });
    jobB = createdB.body;
    await until(
      () => emu.objects('cronjobs', NAMESPACE_A).find((each) => each.metadata?.name === 'nightly'),
      'the CronJob of the job in A',
    );
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await controller?.stop();
    await proxy?.stop();
    await emu?.stop();
    await db?.close();
  });

  it('creates jobs in the namespace asked for, named as the controller names them, and says who', () => {
    expect(jobA).toMatchObject({
      name: 'nightly',
      namespace: NAMESPACE_A,
      changedBy: people.editor.username,
    });
    expect(jobB).toMatchObject({
      name: `${NAMESPACE_B}.report`,
      namespace: NAMESPACE_B,
      changedBy: 'kubernetes-admin',
    });
    const resourceB = emu
      .objects('scheduledjobs', NAMESPACE_B)
      .find((each) => each.metadata?.name === 'report');
    expect(resourceB?.metadata.labels).toMatchObject({ 'crondeck.dev/job-id': String(jobB.id) });
    // Named in its namespace as the API names it there: no annotation needed.
    expect(resourceB?.metadata.annotations?.['crondeck.dev/job-name']).toBeUndefined();
  });

  describe('authentication', () => {
    const refusedWith = async (authorization: string | undefined) => {
      const before = proxy.reviews('tokenreviews').length;
      const answer = await call({ authorization }, 'GET', `/api/jobs/${jobA.id}`);
      return { ...answer, reviewed: proxy.reviews('tokenreviews').length - before };
    };

    it.each([
      ['no Authorization header', undefined, /^missing bearer token/, 0],
      ['an empty one', '', /^missing bearer token/, 0],
      ['another scheme', 'Basic dmlld2VyOnNlY3JldA==', /^malformed Authorization header/, 0],
      [
        'a token the cluster does not know',
        'Bearer not-a-token-of-this-cluster',
        /did not accept the bearer token/,
        1,
      ],
      [
        'a JWT-shaped one of no cluster',
        'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzb21lb25lIn0.c2lnbmF0dXJl',
        /did not accept the bearer token/,
        1,
      ],
      ['one of 9 KB, never sent on', `Bearer ${'a'.repeat(9 * 1024)}`, /longer than 8192 bytes/, 0],
    ])('answers 401 to %s', async (_what, authorization, message, reviews) => {
      const answer = await refusedWith(authorization);
      expect(answer.status).toBe(401);
      expect(answer.body.error).toMatch(message);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="crondeck"');
      expect(answer.reviewed).toBe(reviews);
    });

    it('refuses a token of 1 MB before anything reads it (431), never sending it on', async () => {
      const before = proxy.requests.length;
      const connection = new RawConnection(Number(new URL(service.url).port));
      await connection.ready();
      connection.send(
        `GET /api/jobs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${'a'.repeat(1 << 20)}\r\n\r\n`,
      );
      // Node answers 431 once the headers pass 16 KB and closes the connection; the rest of the
      // megabyte, still arriving, can make the kernel reset it before the client reads the answer.
      const answer = await connection.response().catch(() => null);
      if (answer) {
        expect(answer.status).toBe(431);
        expect(JSON.parse(answer.body).error).toMatch(/request headers are larger than the limit/);
      }
      connection.destroy();
      expect(proxy.requests.length).toBe(before);
    });

    it('keeps /metrics and /health open, and pods report with their job token alone', async () => {
      expect((await call({}, 'GET', '/metrics')).status).toBe(200);
      expect((await call({}, 'GET', '/health')).status).toBe(200);
      // A report without any token is the report route's 403, not the API's 401.
      expect((await call({}, 'POST', `/api/jobs/${jobA.id}/reports`, {})).status).toBe(403);
    });
  });

  describe('one job: every row of the table, for each person, in A and in B', () => {
    /** The job as read, sent back with a change (what a client's edit does). */
    const edited = (job: Obj) => ({ ...job, description: 'edited' });
    const past = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

    /** Status per person for job A; in B only the admin passes (its jobs have no CronJob there). */
    const rows: {
      what: string;
      method: string;
      path: (id: number) => string;
      body?: (job: Obj) => unknown;
      missing: { verb: string; resource: string };
      a: Record<'viewer' | 'editor' | 'planner' | 'outsider', number>;
    }[] = [
      {
        what: 'read the job',
        method: 'GET',
        path: (id) => `/api/jobs/${id}`,
        missing: { verb: 'get', resource: 'scheduledjobs' },
        a: { viewer: 200, editor: 200, planner: 200, outsider: 403 },
      },
      {
        what: 'its slots',
        method: 'GET',
        path: (id) => `/api/jobs/${id}/slots`,
        missing: { verb: 'get', resource: 'scheduledjobs' },
        a: { viewer: 200, editor: 200, planner: 200, outsider: 403 },
      },
      {
        what: 'its executions',
        method: 'GET',
        path: (id) => `/api/executions?jobId=${id}`,
        missing: { verb: 'get', resource: 'scheduledjobs' },
        a: { viewer: 200, editor: 200, planner: 200, outsider: 403 },
      },
      {
        what: 'replace it',
        method: 'PUT',
        path: (id) => `/api/jobs/${id}`,
        body: edited,
        missing: { verb: 'update', resource: 'scheduledjobs' },
        a: { viewer: 403, editor: 200, planner: 403, outsider: 403 },
      },
      {
        what: 'toggle it',
        method: 'PATCH',
        path: (id) => `/api/jobs/${id}/toggle`,
        body: () => ({ enabled: true }),
        missing: { verb: 'update', resource: 'scheduledjobs' },
        a: { viewer: 403, editor: 200, planner: 403, outsider: 403 },
      },
      {
        what: 'read its alerts',
        method: 'GET',
        path: (id) => `/api/jobs/${id}/alerts`,
        missing: { verb: 'get', resource: 'alertconfigs' },
        a: { viewer: 200, editor: 200, planner: 403, outsider: 403 },
      },
      {
        what: 'read its alert history',
        method: 'GET',
        path: (id) => `/api/jobs/${id}/alerts/history`,
        missing: { verb: 'get', resource: 'alertconfigs' },
        a: { viewer: 200, editor: 200, planner: 403, outsider: 403 },
      },
      {
        what: 'replace its alerts',
        method: 'PUT',
        path: (id) => `/api/jobs/${id}/alerts`,
        body: () => ({ webhooks: [], emails: [] }),
        missing: { verb: 'update', resource: 'alertconfigs' },
        a: { viewer: 403, editor: 200, planner: 403, outsider: 403 },
      },
      {
        what: 'remove its alerts',
        method: 'DELETE',
        path: (id) => `/api/jobs/${id}/alerts`,
        missing: { verb: 'update', resource: 'alertconfigs' },
        a: { viewer: 403, editor: 200, planner: 403, outsider: 403 },
      },
      {
        // The planner may ask for runs, but the cluster refuses the Job it creates with their token.
        what: 'run it now',
        method: 'POST',
        path: (id) => `/api/jobs/${id}/run`,
        missing: { verb: 'create', resource: 'scheduledjobs/run' },
        a: { viewer: 403, editor: 200, planner: 403, outsider: 403 },
      },
      {
        what: 'backfill it',
        method: 'POST',
        path: (id) => `/api/jobs/${id}/backfill`,
        body: () => ({ from: past(3), to: past(1 / 24) }),
        missing: { verb: 'create', resource: 'scheduledjobs/run' },
        a: { viewer: 403, editor: 202, planner: 403, outsider: 403 },
      },
    ];

    for (const row of rows) {
      it(`${row.what}: ${row.method} ${row.path(0).replace('/0', '/:id')}`, async () => {
        const job = (await call(people.admin, 'GET', `/api/jobs/${jobA.id}`)).body;
        for (const who of ['viewer', 'planner', 'outsider', 'editor'] as const) {
          const person = people[who];
          const answer = await call(person, row.method, row.path(jobA.id), row.body?.(job));
          expect({ who, status: answer.status, body: answer.body }).toMatchObject({
            who,
            status: row.a[who],
          });
          if (answer.status !== 403) continue;
          if (who === 'outsider' || (row.missing.verb !== 'get' && who !== 'planner')) {
            // Said as the API server says it; the namespace only to one who may see the job.
            const phrase =
              who === 'outsider'
                ? `User "${person.username}" cannot ${row.missing.verb} resource "${row.missing.resource}" in API group "crondeck.dev" for job ${jobA.id}`
                : `User "${person.username}" cannot ${row.missing.verb} resource "${row.missing.resource}" in API group "crondeck.dev" in the namespace "${NAMESPACE_A}"`;
            expect(answer.body.error).toContain(phrase);
          }
        }
        // B grants these people nothing: the job there is one they cannot see.
        for (const who of ['viewer', 'planner', 'outsider', 'editor'] as const) {
          const answer = await call(people[who], row.method, row.path(jobB.id), row.body?.(jobB));
          expect({ who, status: answer.status }).toEqual({ who, status: 403 });
          expect(answer.body.error).toContain(`for job ${jobB.id}`);
          expect(answer.body.error).not.toContain(NAMESPACE_B);
        }
      });
    }

    it('a run the cluster refuses to the caller is their 403, in the API server words', async () => {
      const answer = await call(people.planner, 'POST', `/api/jobs/${jobA.id}/run`);
      expect(answer.status).toBe(403);
      expect(answer.body.error).toContain(
        `User "${people.planner.username}" cannot create resource "jobs" in API group "batch" in the namespace "${NAMESPACE_A}"`,
      );
    });

    it('a backfill whose Jobs the caller could not create is refused before it is recorded', async () => {
      const planned = await db.pool.query(
        'SELECT count(*)::int AS n FROM slot_backfills WHERE requested_by = $1',
        [people.planner.username],
      );
      expect(planned.rows[0].n).toBe(0);
      // The dry run went with the planner's token, and created nothing.
      const dryRuns = proxy.requests.filter(
        (each) => each.method === 'POST' && each.url.includes('/jobs?') && each.url.includes('dryRun=All'),
      );
      expect(dryRuns.map((each) => each.token)).toEqual(
        expect.arrayContaining([people.planner.token, people.editor.token]),
      );
      const recorded = await db.pool.query('SELECT requested_by FROM slot_backfills WHERE job_id = $1', [
        jobA.id,
      ]);
      expect(recorded.rows).toEqual([{ requested_by: people.editor.username }]);
    });

    it('deleting is `delete scheduledjobs`', async () => {
      const created = await call(people.editor, 'POST', '/api/jobs', {
        name: 'short-lived',
        schedule: '@daily',
        command: 'true',
      });
      expect(created.status).toBe(201);
      const { id } = created.body;
      const viewer = await call(people.viewer, 'DELETE', `/api/jobs/${id}`);
      expect(viewer.status).toBe(403);
      expect(viewer.body.error).toBe(
        `User "${people.viewer.username}" cannot delete resource "scheduledjobs" in API group "crondeck.dev" in the namespace "${NAMESPACE_A}"`,
      );
      expect((await call(people.outsider, 'DELETE', `/api/jobs/${id}`)).status).toBe(403);
      expect((await call(people.editor, 'DELETE', `/api/jobs/${id}`)).status).toBe(200);
      // Deleted with the editor's token; gone once the controller has run its finalizer.
      const deletion = proxy.requests.find(
        (each) => each.method === 'DELETE' && each.url.endsWith('/short-lived'),
      );
      expect(deletion?.token).toBe(people.editor.token);
      await until(
        () =>
          !emu.objects('scheduledjobs', NAMESPACE_A).some((each) => each.metadata?.name === 'short-lived'),
        'the ScheduledJob gone',
      );
    });
  });

  describe('creating', () => {
    it("is `create scheduledjobs` in the namespace the job names, the service's by default", async () => {
      const viewer = await call(people.viewer, 'POST', '/api/jobs', {
        name: 'v',
        schedule: '@daily',
        command: 'true',
      });
      expect(viewer).toMatchObject({
        status: 403,
        body: {
          error: `User "${people.viewer.username}" cannot create resource "scheduledjobs" in API group "crondeck.dev" in the namespace "${NAMESPACE_A}"`,
        },
      });
      const elsewhere = await call(people.editor, 'POST', '/api/jobs', {
        name: 'elsewhere',
        schedule: '@daily',
        command: 'true',
        namespace: NAMESPACE_B,
      });
      expect(elsewhere).toMatchObject({
        status: 403,
        body: {
          error: `User "${people.editor.username}" cannot create resource "scheduledjobs" in API group "crondeck.dev" in the namespace "${NAMESPACE_B}"`,
        },
      });
      expect(
        emu.objects('scheduledjobs', NAMESPACE_B).some((each) => each.metadata?.name === 'elsewhere'),
      ).toBe(false);
    });

    it('refuses a namespace that is no namespace name, naming the field', async () => {
      const answer = await call(people.editor, 'POST', '/api/jobs', {
        name: 'bad',
        schedule: '@daily',
        command: 'true',
        namespace: 'Team_B',
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatch(/^namespace: must be a Kubernetes namespace name/);
    });

    it("writes the cluster with the caller's own token, never the service's", async () => {
      const writes = proxy.requests.filter(
        (each) => each.method !== 'GET' && /\/scheduledjobs(\/|\?|$)/.test(each.url),
      );
      expect(writes.length).toBeGreaterThan(0);
      expect(writes.every((each) => each.token !== people.service.token)).toBe(true);
      const creations = writes.filter((each) => each.method === 'POST');
      expect(creations.map((each) => each.token)).toEqual(
        expect.arrayContaining([people.editor.token, people.admin.token]),
      );
    });
  });

  describe('lists', () => {
    it('show only the namespaces the caller may list: a mixed list is filtered, never a 403', async () => {
      const names = async (person: Person, path = '/api/jobs') =>
        (await call(person, 'GET', path)).body.map((job: Obj) => job.name).sort();
      expect(await names(people.viewer)).toEqual(['nightly']);
      expect(await names(people.editor)).toEqual(['nightly']);
      expect(await names(people.admin)).toEqual(['nightly', `${NAMESPACE_B}.report`]);
      expect(await names(people.admin, `/api/jobs?namespace=${NAMESPACE_B}`)).toEqual([
        `${NAMESPACE_B}.report`,
      ]);
    });

    it('answer 403 to one who may list nowhere, or asks for a namespace they may not list', async () => {
      expect(await call(people.outsider, 'GET', '/api/jobs')).toMatchObject({
        status: 403,
        body: {
          error: `User "${people.outsider.username}" cannot list resource "scheduledjobs" in API group "crondeck.dev" at the cluster scope`,
        },
      });
      expect(await call(people.viewer, 'GET', `/api/executions?namespace=${NAMESPACE_B}`)).toMatchObject({
        status: 403,
        body: {
          error: `User "${people.viewer.username}" cannot list resource "scheduledjobs" in API group "crondeck.dev" in the namespace "${NAMESPACE_B}"`,
        },
      });
      expect((await call(people.viewer, 'GET', '/api/jobs?namespace=Not_A_Name')).status).toBe(400);
    });

    it('count and list only the runs of the jobs shown, and say who ran one by hand', async () => {
      const report = (jobId: number, runUid: string, podUid: string) =>
        fetch(`${service.url}/api/jobs/${jobId}/reports`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${reportTokenFor(REPORT_SECRET, jobId)}`,
          },
          body: JSON.stringify({
            podUid,
            runUid,
            attempt: 0,
            final: true,
            status: 'success',
            exitCode: 0,
            startedAt: new Date().toISOString(),
            finishedAt: new Date().toISOString(),
          }),
        });
      // The editor's run now made a Job (with their token): its pod's report names them.
      const manual = emu
        .objects('jobs', NAMESPACE_A)
        .find((each) => each.metadata?.name?.startsWith('nightly-manual-'));
      expect(manual).toBeDefined();
      expect((await report(jobA.id, manual!.metadata.uid, 'pod-a')).status).toBe(201);
      expect((await report(jobB.id, 'run-of-b', 'pod-b')).status).toBe(201);

      const viewerRuns = (await call(people.viewer, 'GET', '/api/executions')).body;
      expect(viewerRuns.map((each: Obj) => [each.jobId, each.triggeredBy])).toEqual([
        [jobA.id, people.editor.username],
      ]);
      const adminRuns = (await call(people.admin, 'GET', '/api/executions')).body;
      expect(adminRuns.map((each: Obj) => each.jobId).sort()).toEqual([jobA.id, jobB.id].sort());
      expect(adminRuns.find((each: Obj) => each.jobId === jobB.id).triggeredBy).toBeNull();

      expect((await call(people.viewer, 'GET', '/api/stats')).body).toMatchObject({
        totalJobs: 1,
        recentSuccesses: 1,
      });
      expect((await call(people.admin, 'GET', '/api/stats')).body).toMatchObject({
        totalJobs: 2,
        recentSuccesses: 2,
      });

      // One execution: read by those who may read its job; the same 403 as for none at all.
      const executionB = adminRuns.find((each: Obj) => each.jobId === jobB.id).id;
      expect((await call(people.admin, 'GET', `/api/executions/${executionB}`)).status).toBe(200);
      const unseen = await call(people.viewer, 'GET', `/api/executions/${executionB}`);
      const missing = await call(people.viewer, 'GET', '/api/executions/999999');
      expect(unseen.status).toBe(403);
      expect(missing.status).toBe(403);
      expect(missing.body.error.replace('999999', String(executionB))).toBe(unseen.body.error);
      expect((await call(people.admin, 'GET', '/api/executions/999999')).status).toBe(404);
    });
  });

  describe('a job id the caller may not see', () => {
    it('answers the same 403 whether or not it exists; 404 only to one who may see every job', async () => {
      const unseen = await call(people.viewer, 'GET', `/api/jobs/${jobB.id}`);
      const missing = await call(people.viewer, 'GET', '/api/jobs/999999');
      expect(unseen.status).toBe(403);
      expect(missing.status).toBe(403);
      expect(missing.body.error.replace('999999', String(jobB.id))).toBe(unseen.body.error);
      expect((await call(people.admin, 'GET', '/api/jobs/999999')).status).toBe(404);
      expect((await call(people.viewer, 'GET', '/api/jobs/abc')).status).toBe(400);
    });
  });

  describe('requests about no namespace', () => {
    it('are checked as non-resource URLs under /crondeck, with the verb of their method', async () => {
      expect(await call(people.viewer, 'POST', '/api/scheduler/pause', {})).toMatchObject({
        status: 403,
        body: { error: `User "${people.viewer.username}" cannot post path "/crondeck/api/scheduler/pause"` },
      });
      expect(await call(people.viewer, 'POST', '/api/labels', { name: 'mine' })).toMatchObject({
        status: 403,
        body: { error: `User "${people.viewer.username}" cannot post path "/crondeck/api/labels"` },
      });
      expect(await call(people.viewer, 'DELETE', '/api/drafts/1')).toMatchObject({
        status: 403,
        body: { error: `User "${people.viewer.username}" cannot delete path "/crondeck/api/drafts/1"` },
      });
      // A path that is no route: checked the same way, then the route's 404 for one who may.
      expect((await call(people.viewer, 'POST', '/api/nothing-here')).status).toBe(403);
      expect((await call(people.admin, 'POST', '/api/nothing-here')).status).toBe(404);
    });

    it('are closed to a signed-in user granted nothing, whatever system:discovery grants on /api/*', async () => {
      // The emulator's bootstrap policy binds system:discovery (`get` on /api/*, the API server's
      // own discovery) to system:authenticated, as every cluster does: the plain path would pass.
      const reads = [
        '/api/scheduler/status',
        '/api/cron/describe?expr=0%203%20*%20*%20*',
        '/api/drafts',
        '/api/labels',
        '/api/labels/1/messages',
        '/api/messages/1',
      ];
      for (const who of ['outsider', 'viewer'] as const) {
        for (const path of reads) {
          const checked = `/crondeck${path.split('?')[0]}`;
          expect([who, path, await call(people[who], 'GET', path)]).toMatchObject([
            who,
            path,
            {
              status: 403,
              body: { error: `User "${people[who].username}" cannot get path "${checked}"` },
            },
          ]);
        }
      }
      // Granted under /crondeck (the editor's ClusterRole: /crondeck/api/scheduler/*), it passes.
      expect(await call(people.editor, 'GET', '/api/scheduler/status')).toMatchObject({
        status: 200,
        body: { paused: false },
      });
      expect((await call(people.editor, 'GET', '/api/labels')).status).toBe(403);
      expect((await call(people.admin, 'GET', '/api/labels')).status).toBe(200);
    });

    it("pause and resume with the service's own identity, for one who may", async () => {
      expect((await call(people.editor, 'POST', '/api/scheduler/pause', {})).status).toBe(200);
      await until(
        () =>
          emu.objects('cronjobs', NAMESPACE_A).find((each) => each.metadata?.name === 'nightly')?.spec
            ?.suspend,
        'the CronJob suspended',
      );
      expect((await call(people.editor, 'POST', '/api/scheduler/resume')).status).toBe(200);
      const patches = proxy.requests.filter(
        (each) => each.method === 'PATCH' && each.url.includes('/cronjobs/'),
      );
      expect(patches.length).toBeGreaterThan(0);
      expect(patches.every((each) => each.token === people.service.token)).toBe(true);
    });
  });

  describe('GET /api/session', () => {
    it('says who the caller is and what they may do in each namespace with jobs', async () => {
      const viewer = (await call(people.viewer, 'GET', '/api/session')).body;
      expect(viewer).toEqual({
        auth: 'kubernetes',
        user: {
          username: people.viewer.username,
          groups: expect.arrayContaining(['system:serviceaccounts']),
        },
        namespaces: [
          {
            name: NAMESPACE_A,
            can: {
              list: true,
              get: true,
              create: false,
              update: false,
              delete: false,
              run: false,
              getAlerts: true,
              updateAlerts: false,
              getCronJobs: false,
              patchCronJobs: false,
              createJobs: false,
              getCronJobWatches: false,
              updateCronJobWatches: false,
            },
          },
          {
            name: NAMESPACE_B,
            can: {
              list: false,
              get: false,
              create: false,
              update: false,
              delete: false,
              run: false,
              getAlerts: false,
              updateAlerts: false,
              getCronJobs: false,
              patchCronJobs: false,
              createJobs: false,
              getCronJobWatches: false,
              updateCronJobWatches: false,
            },
          },
        ],
        pauseResume: false,
      });
      const editor = (await call(people.editor, 'GET', '/api/session')).body;
      expect(editor.namespaces[0].can).toEqual({
        list: true,
        get: true,
        create: true,
        update: true,
        delete: true,
        run: true,
        getAlerts: true,
        updateAlerts: true,
        // A watched CronJob's job: the editor may read the CronJob and run it (create jobs), not
        // suspend it (patch cronjobs) nor change the CronJobWatch its alerts come from.
        getCronJobs: true,
        patchCronJobs: false,
        createJobs: true,
        getCronJobWatches: false,
        updateCronJobWatches: false,
      });
      expect(editor.pauseResume).toBe(true);
      expect((await call({}, 'GET', '/api/session')).status).toBe(401);
    });
  });

  describe('changes', () => {
    it('name who made the last one; a change of the resource by anyone else names no one', async () => {
      const toggled = await call(people.editor, 'PATCH', `/api/jobs/${jobA.id}/toggle`, { enabled: true });
      expect(toggled.body.changedBy).toBe(people.editor.username);
      // An edit of the ScheduledJob itself (kubectl): the controller mirrors it, and names no one.
      await fetch(`${emu.url}/apis/crondeck.dev/v1alpha1/namespaces/${NAMESPACE_A}/scheduledjobs/nightly`, {
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${emu.adminToken}`,
          'content-type': 'application/merge-patch+json',
        },
        body: JSON.stringify({ spec: { description: 'edited with kubectl' } }),
      });
      await until(
        async () =>
          (await call(people.admin, 'GET', `/api/jobs/${jobA.id}`)).body.description ===
          'edited with kubectl',
        'the controller to mirror the edit',
      );
      expect((await call(people.admin, 'GET', `/api/jobs/${jobA.id}`)).body.changedBy).toBeNull();
    });
  });

  it('starts a run now whose starter it cannot record (the database refuses), and says nothing of it', async () => {
    await db.pool.query('ALTER TABLE run_triggers RENAME TO run_triggers_away');
    try {
      const before = emu.objects('jobs', NAMESPACE_A).length;
      expect((await call(people.editor, 'POST', `/api/jobs/${jobA.id}/run`)).status).toBe(200);
      expect(emu.objects('jobs', NAMESPACE_A).length).toBe(before + 1);
    } finally {
      await db.pool.query('ALTER TABLE run_triggers_away RENAME TO run_triggers');
    }
  });

  describe('with the shared token (SERVICE_AUTH=token) on the same cluster', () => {
    const API_TOKEN = 'a-token-of-at-least-16-chars';
    let shared: RunningService;
    const asHolder = (method: string, path: string, body?: unknown) =>
      callAs(shared.url, { authorization: `Bearer ${API_TOKEN}` }, method, path, body);

    beforeAll(async () => {
      shared = await serveOnCluster(db, kc, undefined, { env: { SERVICE_API_TOKEN: API_TOKEN } });
    });
    afterAll(() => shared?.stop());

    it('has every job in its namespace, and a session in which the token holder may do everything', async () => {
      const everything = {
        list: true,
        get: true,
        create: true,
        update: true,
        delete: true,
        run: true,
        getAlerts: true,
        updateAlerts: true,
        getCronJobs: true,
        patchCronJobs: true,
        createJobs: true,
        getCronJobWatches: true,
        updateCronJobWatches: true,
      };
      expect((await asHolder('GET', '/api/session')).body).toEqual({
        auth: 'token',
        user: null,
        namespaces: [
          { name: NAMESPACE_A, can: everything },
          { name: NAMESPACE_B, can: everything },
        ],
        pauseResume: true,
      });
      const names = async (path: string) =>
        (await asHolder('GET', path)).body.map((each: Obj) => each.jobName ?? each.name);
      expect(await names(`/api/jobs?namespace=${NAMESPACE_B}`)).toEqual([`${NAMESPACE_B}.report`]);
      expect(await names(`/api/executions?namespace=${NAMESPACE_B}`)).toEqual([`${NAMESPACE_B}.report`]);
      const created = await asHolder('POST', '/api/jobs', {
        name: 'by-token',
        schedule: '@daily',
        command: 'true',
        namespace: NAMESPACE_B,
      });
      expect(created.body).toMatchObject({
        name: `${NAMESPACE_B}.by-token`,
        namespace: NAMESPACE_B,
        changedBy: null,
      });
      expect(
        emu.objects('scheduledjobs', NAMESPACE_B).some((each) => each.metadata?.name === 'by-token'),
      ).toBe(true);
      // A job stays where it is: sent back with another namespace, it is refused.
      const moved = await asHolder('PUT', `/api/jobs/${created.body.id}`, {
        ...created.body,
        namespace: NAMESPACE_A,
      });
      expect(moved).toMatchObject({
        status: 400,
        body: {
          error: `namespace: a job cannot move to another namespace (job ${created.body.id} is in ${NAMESPACE_B})`,
        },
      });
    });
  });

  describe('a backfill’s Jobs', () => {
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    /** Three past slots of an hourly job. */
    const range = {
      from: new Date(hour - 3 * 3_600_000).toISOString(),
      to: new Date(hour - 3_600_000).toISOString(),
      concurrency: 1,
    };
    const backfillJobsOf = (backfillId: number) =>
      emu
        .objects('jobs', NAMESPACE_A)
        .filter((each) => each.metadata.labels?.['crondeck.dev/backfill-id'] === String(backfillId));
    const jobCreations = () =>
      proxy.requests.filter(
        (each) => each.method === 'POST' && /\/jobs\?/.test(each.url) && !each.url.includes('dryRun'),
      );
    /** An hourly job of the editor's, once the controller has made its CronJob. */
    async function hourlyJob(name: string): Promise<number> {
      const created = await call(people.editor, 'POST', '/api/jobs', {
        name,
        schedule: '0 * * * *',
        command: 'true',
      });
      expect(created.status).toBe(201);
      await until(
        () => emu.objects('cronjobs', NAMESPACE_A).find((each) => each.metadata?.name === name),
        `the CronJob of ${name}`,
      );
      return created.body.id;
    }
    /**
     * The controller let the deleted suspended Jobs (named with `namePart`) go as no run at all,
     * not as failed ones: the job has no execution.
     */
    async function expectNoRunOfDeleted(jobId: number, namePart: string): Promise<void> {
      await until(
        () =>
          controller.logger.lines.some(
            (line) =>
              line.msg === 'a Kubernetes Job deleted before it ever started ran nothing' &&
              String(line.kubernetesJob).includes(namePart),
          ),
        'the deleted suspended Job let go',
      );
      const runs = await db.pool.query('SELECT count(*)::int AS n FROM executions WHERE job_id = $1', [
        jobId,
      ]);
      expect(runs.rows[0].n).toBe(0);
    }
    const backfillOf = async (jobId: number) =>
      (
        await db.pool.query(
          'SELECT id, caller_jobs, finished_at, requested_by FROM slot_backfills WHERE job_id = $1',
          [jobId],
        )
      ).rows;

    it('are created with the caller’s token, suspended, and resumed by the controller `concurrency` at a time', async () => {
      const jobId = await hourlyJob('hourly-backfilled');
      const before = jobCreations().length;
      const asked = await call(people.editor, 'POST', `/api/jobs/${jobId}/backfill`, range);
      expect(asked).toMatchObject({ status: 202, body: { slots: 3 } });
      // Every slot's Job, made by the editor's own token before the answer.
      expect(
        jobCreations()
          .slice(before)
          .map((each) => each.token),
      ).toEqual([people.editor.token, people.editor.token, people.editor.token]);
      const [backfill] = await backfillOf(jobId);
      expect(backfill).toMatchObject({ caller_jobs: 'created', requested_by: people.editor.username });
      expect(backfillJobsOf(Number(backfill.id))).toHaveLength(3);
      // The controller lets the first run; the other two wait, suspended, with no pod.
      const resumed = await until(() => {
        const jobs = backfillJobsOf(Number(backfill.id));
        const going = jobs.filter((each) => !each.spec.suspend);
        return going.length === 1 && jobs.length === 3 ? going : null;
      }, 'the first backfill Job resumed');
      expect(resumed[0]!.metadata.annotations['crondeck.dev/scheduled-time']).toBe(range.from);
      emu.syncJob(NAMESPACE_A, resumed[0]!.metadata.name);
      const waiting = backfillJobsOf(Number(backfill.id)).filter((each) => each.spec.suspend);
      expect(waiting).toHaveLength(2);
      for (const each of waiting) {
        expect(emu.syncJob(NAMESPACE_A, each.metadata.name).status.conditions).toEqual([
          expect.objectContaining({ type: 'Suspended', status: 'True', reason: 'JobSuspended' }),
        ]);
      }
      const podsOf = (name: string) =>
        emu.objects('pods', NAMESPACE_A).filter((pod) => pod.metadata.labels?.['job-name'] === name);
      expect(podsOf(resumed[0]!.metadata.name)).toHaveLength(1);
      expect(waiting.flatMap((each) => podsOf(each.metadata.name))).toEqual([]);
    });

    it('undo a backfill the API server failed half-way: its Jobs deleted, nothing recorded to run', async () => {
      const jobId = await hourlyJob('hourly-half-way');
      proxy.failAfter({ method: 'POST', pattern: /\/jobs\?(?!.*dryRun)/, passing: 1 });
      let answer;
      try {
        answer = await call(people.editor, 'POST', `/api/jobs/${jobId}/backfill`, range);
      } finally {
        proxy.failAfter(null);
      }
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatch(/^the cluster refused the change/);
      const [backfill] = await backfillOf(jobId);
      expect(backfill.finished_at).not.toBeNull();
      await until(() => backfillJobsOf(Number(backfill.id)).length === 0, 'the made Jobs deleted');
      await expectNoRunOfDeleted(jobId, 'hourly-half-way');
      // Not in the way of the next one.
      expect((await call(people.editor, 'POST', `/api/jobs/${jobId}/backfill`, range)).status).toBe(202);
    });

    it('of a backfill the service stopped making long ago: the controller deletes them and ends it', async () => {
      const jobId = await hourlyJob('hourly-stalled');
      const { rows } = await db.pool.query(
        `INSERT INTO slot_backfills (job_id, slots, concurrency, requested_at, caller_jobs, requested_by)
         VALUES ($1, $2::timestamptz[], 1, now() - interval '11 minutes', 'creating', $3) RETURNING id`,
        [jobId, [range.from], people.editor.username],
      );
      const id = Number(rows[0].id);
      const cronJob = emu
        .objects('cronjobs', NAMESPACE_A)
        .find((each) => each.metadata?.name === 'hourly-stalled')!;
      await asAdmin(emu, 'POST', `/apis/batch/v1/namespaces/${NAMESPACE_A}/jobs`, {
        ...slotRunJob(cronJob, { slot: new Date(range.from), trigger: 'backfill', backfillId: id }),
        spec: { ...cronJob.spec.jobTemplate.spec, suspend: true },
      });
      expect(backfillJobsOf(id)).toHaveLength(1);
      await until(async () => (await backfillOf(jobId))[0].finished_at !== null, 'the backfill ended');
      expect(backfillJobsOf(id)).toEqual([]);
      await expectNoRunOfDeleted(jobId, '-backfill');
    });
  });
});
