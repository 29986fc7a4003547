import { SERVICE_ACCOUNTS } from './helmChart';
import { type E2eHarness, within } from './harness';
import {
  bindInNamespace,
  createRole,
  type Identity,
  mayI,
  serviceAccountIdentity,
  tokenOf,
} from './identities';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PEOPLE = ['viewer', 'editor', 'outsider'] as const;
type Person = (typeof PEOPLE)[number];
type Statuses = Record<Person, number>;

const SCHEDULED_JOBS = (namespace: string) =>
  `/apis/crondeck.dev/v1alpha1/namespaces/${namespace}/scheduledjobs`;

/**
 * Who may do what through Crondeck's REST API when it runs with SERVICE_AUTH=kubernetes
 * (docs/security.md): three ServiceAccounts sign in with their own tokens, a viewer (the built-in
 * `view` in the suite's namespace A, by a RoleBinding), an editor (`edit` in A) and an outsider
 * (nothing), and every row of the access table is asked of each in A and in a second namespace B,
 * where none of them has anything. A job of A is the editor's, made through Crondeck; one of B is
 * made by the suite's operator (B is not watched: no controller reconciles it, the service knows
 * it). A fourth, the runner, may run jobs in Crondeck's terms (`create scheduledjobs/run`) but
 * not create Jobs in the cluster's: the API server's refusal names it, so the run-now Job went out
 * with its token.
 *
 * Runs inside the e2e suite (describeE2e), on its harness, in order.
 */
export function describeRbac(harness: () => E2eHarness): void {
  describe('who may do what through Crondeck: the caller’s own Kubernetes token, RBAC deciding', () => {
    let h: E2eHarness;
    let namespaceA: string;
    let namespaceB: string;
    const people = {} as Record<Person, Identity>;
    let runner: Identity;
    const jobA = { id: 0, name: 'rbac-editors' };
    const jobB = { id: 0, name: 'rbac-elsewhere' };
    let executionA = 0;

    const wait = <T>(ms: number, what: string, check: () => Promise<T | undefined | null | false>) =>
      within(ms, what, () => h.diagnostics(), check);
    /** The status each person gets for the same request. */
    const statuses = async (method: string, path: string, body?: unknown): Promise<Statuses> => {
      const answers = await Promise.all(
        PEOPLE.map(async (person) => (await h.restAs(people[person].token, method, path, body)).status),
      );
      return Object.fromEntries(PEOPLE.map((person, i) => [person, answers[i]])) as Statuses;
    };
    const only = (allowed: Partial<Record<Person, number>>, otherwise = 403): Statuses =>
      Object.fromEntries(PEOPLE.map((person) => [person, allowed[person] ?? otherwise])) as Statuses;
    const nobody = only({});
    const jobSpec = (name: string, extra: Obj = {}) => ({
      name,
      schedule: '0 * * * *',
      timezone: 'UTC',
      command: 'echo rbac',
      ...extra,
    });
    const idsIn = (list: Obj) => ((Array.isArray(list) ? list : []) as Obj[]).map((job) => job.id as number);

    beforeAll(async () => {
      h = harness();
      namespaceA = h.namespace;
      namespaceB = `${h.namespace}-b`;
      await h.api.core.createNamespace({ body: { metadata: { name: namespaceB } } });
      for (const person of PEOPLE) people[person] = await serviceAccountIdentity(h.api, namespaceA, person);
      await bindInNamespace(h.api, namespaceA, people.viewer, { clusterRole: 'view' });
      await bindInNamespace(h.api, namespaceA, people.editor, { clusterRole: 'edit' });
      // docs/security.md's "run but not edit", less the run-now Job's `create jobs`.
      runner = await serviceAccountIdentity(h.api, namespaceA, 'runner');
      await createRole(h.api, namespaceA, 'crondeck-runner', [
        { apiGroups: ['crondeck.dev'], resources: ['scheduledjobs'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['crondeck.dev'], resources: ['scheduledjobs/run'], verbs: ['create'] },
        { apiGroups: ['batch'], resources: ['cronjobs'], verbs: ['get'] },
      ]);
      await bindInNamespace(h.api, namespaceA, runner, { role: 'crondeck-runner' });
      await bindInNamespace(h.api, namespaceB, h.operator!, { clusterRole: 'edit' });
      // The chart's ClusterRoles reach the built-in ones through the aggregation controller.
      await wait(30_000, 'the chart’s roles aggregated into edit and view', async () => {
        const run = { group: 'crondeck.dev', resource: 'scheduledjobs', subresource: 'run', verb: 'create' };
        const list = { group: 'crondeck.dev', resource: 'scheduledjobs', verb: 'list' };
        return (
          (await mayI(h.api, people.editor.token, { ...run, namespace: namespaceA })) &&
          (await mayI(h.api, people.viewer.token, { ...list, namespace: namespaceA }))
        );
      });
    }, 120_000);
    afterAll(async () => {
      await h?.api.core.deleteNamespace({ name: namespaceB }).catch(() => undefined);
    });

    it('signs in only with a token the cluster accepts, and says who it is', async () => {
      expect((await h.restAs(null, 'GET', '/api/jobs')).status).toBe(401);
      expect((await h.restAs('not-a-token-the-cluster-knows', 'GET', '/api/jobs')).status).toBe(401);
      for (const person of PEOPLE) {
        const session = await h.restAs(people[person].token, 'GET', '/api/session');
        expect([person, session.status]).toEqual([person, 200]);
        expect(JSON.stringify(session.body)).toContain(people[person].username);
      }
    });

    it('creates a job for whoever may create ScheduledJobs in its namespace, with their own token', async () => {
      // Each asks for a job of their own, disabled (it never fires on a real cluster).
      const creations = async (namespace: string) => {
        const answers = await Promise.all(
          PEOPLE.map(async (person) => {
            const spec = jobSpec(`rbac-by-${person}`, { namespace, enabled: false });
            return (await h.restAs(people[person].token, 'POST', '/api/jobs', spec)).status;
          }),
        );
        return Object.fromEntries(PEOPLE.map((person, i) => [person, answers[i]])) as Statuses;
      };
      expect(await creations(namespaceA)).toEqual(only({ editor: 201 }));
      expect(await creations(namespaceB)).toEqual(nobody);

      const created = await h.restAs(people.editor.token, 'POST', '/api/jobs', jobSpec(jobA.name));
      expect(created.status).toBe(201);
      jobA.id = created.body.id as number;
      expect(created.body).toMatchObject({ namespace: namespaceA });
      const elsewhere = await h.rest('POST', '/api/jobs', jobSpec(jobB.name, { namespace: namespaceB }));
      expect(elsewhere).toMatchObject({ status: 201, body: { namespace: namespaceB } });
      jobB.id = elsewhere.body.id as number;

      // The API server took the ScheduledJob from the editor: the service's own account may not
      // create one (the chart's Role in kubernetes mode only reads).
      const resource = await wait(30_000, 'the editor’s ScheduledJob to be Ready', async () => {
        const { body } = await h.api.raw('GET', SCHEDULED_JOBS(namespaceA));
        const found = ((body.items ?? []) as Obj[]).find((item) => item.status?.jobId === jobA.id);
        const ready = ((found?.status?.conditions ?? []) as Obj[]).find((c) => c.type === 'Ready');
        return ready?.status === 'True' ? found : null;
      });
      expect(resource.metadata.namespace).toBe(namespaceA);
      // The chart's API ServiceAccount (absent with CRONDECK_E2E_HELM=0).
      const serviceToken = await tokenOf(h.api, namespaceA, SERVICE_ACCOUNTS.api);
      if (serviceToken) {
        const serviceMay = await mayI(h.api, serviceToken, {
          group: 'crondeck.dev',
          resource: 'scheduledjobs',
          verb: 'create',
          namespace: namespaceA,
        });
        expect(serviceMay).toBe(false);
      }
      // Nothing was written for those refused.
      const namesIn = async (namespace: string) =>
        (((await h.api.raw('GET', SCHEDULED_JOBS(namespace))).body.items ?? []) as Obj[])
          .map((item) => item.metadata.name as string)
          .filter((name) => name.includes('rbac-by-'))
          .sort();
      expect(await namesIn(namespaceA)).toEqual(['rbac-by-editor']);
      expect(await namesIn(namespaceB)).toEqual([]);
    });

    it('lists what each may list, filtered by namespace; 403 where one may list nowhere, or asks for such a namespace', async () => {
      // As the API server answers a list: refused where the caller may list in no namespace at all
      // (the outsider) or names one they may not; a list over namespaces, some allowed, is filtered.
      const lists: Array<[string, Statuses]> = [
        ['/api/jobs', only({ viewer: 200, editor: 200 })],
        [`/api/jobs?namespace=${namespaceA}`, only({ viewer: 200, editor: 200 })],
        [`/api/jobs?namespace=${namespaceB}`, nobody],
        ['/api/executions', only({ viewer: 200, editor: 200 })],
        [`/api/executions?namespace=${namespaceA}`, only({ viewer: 200, editor: 200 })],
        [`/api/executions?namespace=${namespaceB}`, nobody],
        ['/api/stats', only({ viewer: 200, editor: 200 })],
        [`/api/stats?namespace=${namespaceB}`, nobody],
      ];
      const answered: Record<string, Statuses> = {};
      for (const [path] of lists) answered[path] = await statuses('GET', path);
      expect(answered).toEqual(Object.fromEntries(lists));
      // Refused as the API server words it: at the cluster scope, or in the namespace asked for.
      const outsider = await h.restAs(people.outsider.token, 'GET', '/api/jobs');
      expect(outsider.body.error).toBe(
        `User "${people.outsider.username}" cannot list resource "scheduledjobs" in API group "crondeck.dev" at the cluster scope`,
      );
      const elsewhere = await h.restAs(people.viewer.token, 'GET', `/api/stats?namespace=${namespaceB}`);
      expect(elsewhere.body.error).toBe(
        `User "${people.viewer.username}" cannot list resource "scheduledjobs" in API group "crondeck.dev" in the namespace "${namespaceB}"`,
      );
      // The mixed list (A allowed, B not, both holding jobs) holds A's job and never B's.
      const seen = async (person: Person, path: string) =>
        idsIn((await h.restAs(people[person].token, 'GET', path)).body);
      for (const path of ['/api/jobs', `/api/jobs?namespace=${namespaceA}`]) {
        for (const person of ['viewer', 'editor'] as const) {
          const jobs = await seen(person, path);
          expect({ path, person, jobA: jobs.includes(jobA.id), jobB: jobs.includes(jobB.id) }).toEqual({
            path,
            person,
            jobA: true,
            jobB: false,
          });
        }
      }
      // The operator, who may list B, sees the job there.
      expect(idsIn((await h.rest('GET', `/api/jobs?namespace=${namespaceB}`)).body)).toEqual([jobB.id]);
      expect((await h.restAs(people.viewer.token, 'GET', '/api/stats')).body.totalJobs).toBeGreaterThan(0);
    });

    it('reads one job, its slots and its executions where `get scheduledjobs` is granted on it', async () => {
      for (const path of [
        `/api/jobs/${jobA.id}`,
        `/api/jobs/${jobA.id}/slots`,
        `/api/executions?jobId=${jobA.id}`,
      ]) {
        expect({ path, ...(await statuses('GET', path)) }).toEqual({
          path,
          ...only({ viewer: 200, editor: 200 }),
        });
      }
      for (const path of [
        `/api/jobs/${jobB.id}`,
        `/api/jobs/${jobB.id}/slots`,
        `/api/executions?jobId=${jobB.id}`,
      ]) {
        expect({ path, ...(await statuses('GET', path)) }).toEqual({ path, ...nobody });
      }
    });

    it('runs now and backfills for whoever may create scheduledjobs/run, and records who ran it', async () => {
      const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
      const lastHour = new Date(hour - 3_600_000).toISOString();
      const backfill = { from: lastHour, to: lastHour, concurrency: 1 };
      expect(await statuses('POST', `/api/jobs/${jobB.id}/run`)).toEqual(nobody);
      expect(await statuses('POST', `/api/jobs/${jobB.id}/backfill`, backfill)).toEqual(nobody);
      for (const person of ['viewer', 'outsider'] as const) {
        expect([
          person,
          (await h.restAs(people[person].token, 'POST', `/api/jobs/${jobA.id}/run`)).status,
        ]).toEqual([person, 403]);
        const refused = await h.restAs(
          people[person].token,
          'POST',
          `/api/jobs/${jobA.id}/backfill`,
          backfill,
        );
        expect([person, refused.status]).toEqual([person, 403]);
      }
      expect((await h.restAs(people.editor.token, 'POST', `/api/jobs/${jobA.id}/run`)).status).toBe(200);
      const run = await wait(h.bounds.runMs, 'the editor’s run to be recorded', async () => {
        const { body } = await h.restAs(people.editor.token, 'GET', `/api/executions?jobId=${jobA.id}`);
        // A run now has no slot, hence no trigger.
        return (body as unknown as Obj[]).find((e) => !e.trigger && e.status === 'success');
      });
      executionA = run.id as number;
      const recorded = (await h.restAs(people.editor.token, 'GET', `/api/executions/${executionA}`)).body;
      expect(recorded.triggeredBy).toBe(people.editor.username);
      expect(await statuses('GET', `/api/executions/${executionA}`)).toEqual(
        only({ viewer: 200, editor: 200 }),
      );
      const output = await h.restAs(people.viewer.token, 'GET', `/api/executions/${executionA}`);
      expect(output.body.stdout).toBe('rbac\n');
      expect(
        await h.restAs(people.editor.token, 'POST', `/api/jobs/${jobA.id}/backfill`, backfill),
      ).toMatchObject({
        status: 202,
        body: { slots: 1 },
      });
      // Its Job was created with the editor's token before the answer (suspended; the controller
      // resumes it): it exists already, and the service's own account may not create Jobs.
      const backfillJobs = await h.api.raw(
        'GET',
        `/apis/batch/v1/namespaces/${namespaceA}/jobs?labelSelector=crondeck.dev%2Fbackfill-id`,
      );
      expect((backfillJobs.body.items as Obj[]).length).toBeGreaterThan(0);
      const serviceToken = await tokenOf(h.api, namespaceA, SERVICE_ACCOUNTS.api);
      if (serviceToken) {
        const serviceMay = await mayI(h.api, serviceToken, {
          group: 'batch',
          resource: 'jobs',
          verb: 'create',
          namespace: namespaceA,
        });
        expect(serviceMay).toBe(false);
      }
      // The run names the editor too.
      const backfilled = await wait(h.bounds.runMs, 'the editor’s backfill run to be recorded', async () => {
        const { body } = await h.restAs(people.editor.token, 'GET', `/api/executions?jobId=${jobA.id}`);
        return (body as unknown as Obj[]).find((e) => e.trigger === 'backfill' && e.status === 'success');
      });
      expect(backfilled.triggeredBy).toBe(people.editor.username);
    }, 240_000);

    it('writes the run-now Job with the caller’s token: the API server refuses one who may not create Jobs, by name', async () => {
      const refused = await h.restAs(runner.token, 'POST', `/api/jobs/${jobA.id}/run`);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toEqual(expect.stringContaining(runner.username));
      expect(refused.body.error).toEqual(expect.stringContaining('jobs'));
      // The same for a backfill's dry run.
      const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
      const at = new Date(hour - 2 * 3_600_000).toISOString();
      const backfill = await h.restAs(runner.token, 'POST', `/api/jobs/${jobA.id}/backfill`, {
        from: at,
        to: at,
        concurrency: 1,
      });
      expect(backfill.status).toBe(403);
      expect(backfill.body.error).toEqual(expect.stringContaining(runner.username));
    });

    it('changes, toggles and reads or sets alerts per the job’s namespace', async () => {
      const alerts = { webhooks: [{ url: `${h.receiver.url}/rbac`, events: ['failed'] }], emails: [] };
      for (const job of [jobA, jobB]) {
        const allowed = job === jobA;
        const path = `/api/jobs/${job.id}`;
        const cases: Array<[string, string, unknown, Statuses]> = [
          ['PUT', path, jobSpec(job.name, { command: 'echo changed' }), only(allowed ? { editor: 200 } : {})],
          ['PATCH', `${path}/toggle`, { enabled: false }, only(allowed ? { editor: 200 } : {})],
          ['GET', `${path}/alerts`, undefined, only(allowed ? { viewer: 200, editor: 200 } : {})],
          ['PUT', `${path}/alerts`, alerts, only(allowed ? { editor: 200 } : {})],
        ];
        for (const [method, at, body, expected] of cases) {
          expect({ method, at, ...(await statuses(method, at, body)) }).toEqual({ method, at, ...expected });
        }
      }
      expect((await h.restAs(people.viewer.token, 'GET', `/api/jobs/${jobA.id}`)).body).toMatchObject({
        command: 'echo changed',
        enabled: false,
      });
    });

    it('checks a watched CronJob’s job on the CronJob, as kubectl would be checked', async () => {
      // A plain CronJob that a CronJobWatch selects (issue 40): it never fires in the test.
      await h.api.batch.createNamespacedCronJob({
        namespace: namespaceA,
        body: {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'rbac-watched', labels: { 'crondeck-e2e/rbac': 'yes' } },
          spec: {
            schedule: '0 0 1 1 *',
            jobTemplate: {
              spec: {
                template: {
                  spec: {
                    restartPolicy: 'Never',
                    containers: [{ name: 'main', image: h.jobImage, command: ['sh', '-c', 'true'] }],
                  },
                },
              },
            },
          },
        },
      });
      await h.api.custom.createNamespacedCustomObject({
        group: 'crondeck.dev',
        version: 'v1alpha1',
        plural: 'cronjobwatches',
        namespace: namespaceA,
        body: {
          apiVersion: 'crondeck.dev/v1alpha1',
          kind: 'CronJobWatch',
          metadata: { name: 'rbac' },
          spec: { selector: { matchLabels: { 'crondeck-e2e/rbac': 'yes' } } },
        },
      });
      const name = `cronjob.${namespaceA}.rbac-watched`;
      const watched = await wait(60_000, 'the watched job', async () => {
        const listed = (await h.restAs(people.editor.token, 'GET', '/api/jobs')).body;
        return ((Array.isArray(listed) ? listed : []) as Obj[]).find((job) => job.name === name);
      });
      const path = `/api/jobs/${watched.id}`;
      // `view` grants `get cronjobs` (and, through Crondeck's aggregated role, its CronJobWatch);
      // `edit` grants `patch cronjobs` and `create jobs` too.
      expect(await statuses('GET', path)).toEqual(only({ viewer: 200, editor: 200 }));
      expect(await statuses('GET', `${path}/alerts`)).toEqual(only({ viewer: 200, editor: 200 }));
      expect(await statuses('PATCH', `${path}/toggle`, { enabled: false })).toEqual(only({ editor: 200 }));
      expect((await h.restAs(people.editor.token, 'PATCH', `${path}/toggle`, { enabled: true })).status).toBe(
        200,
      );
      // One whose Role grants ScheduledJobs but nothing in `batch` reads the editor's job, not this one.
      const reader = await serviceAccountIdentity(h.api, namespaceA, 'scheduledjob-reader');
      await createRole(h.api, namespaceA, 'scheduledjob-reader', [
        { apiGroups: ['crondeck.dev'], resources: ['scheduledjobs'], verbs: ['get', 'list'] },
      ]);
      await bindInNamespace(h.api, namespaceA, reader, { role: 'scheduledjob-reader' });
      await wait(30_000, 'the reader’s Role', async () =>
        mayI(h.api, reader.token, {
          group: 'crondeck.dev',
          resource: 'scheduledjobs',
          verb: 'get',
          namespace: namespaceA,
        }),
      );
      expect((await h.restAs(reader.token, 'GET', `/api/jobs/${jobA.id}`)).status).toBe(200);
      const unseen = await h.restAs(reader.token, 'GET', path);
      expect(unseen.status).toBe(403);
      expect(unseen.body.error).toEqual(
        expect.stringContaining(`cannot get resource "cronjobs" in API group "batch" for job ${watched.id}`),
      );
      // The runner may get the CronJob but not create Jobs: refused before any Job is made, in the
      // API server's words.
      const refused = await h.restAs(runner.token, 'POST', `${path}/run`);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toEqual(
        expect.stringContaining(`cannot create resource "jobs" in API group "batch"`),
      );
      await h.api.custom.deleteNamespacedCustomObject({
        group: 'crondeck.dev',
        version: 'v1alpha1',
        plural: 'cronjobwatches',
        namespace: namespaceA,
        name: 'rbac',
      });
      await h.api.batch.deleteNamespacedCronJob({ namespace: namespaceA, name: 'rbac-watched' });
    });

    it('deletes for whoever may delete ScheduledJobs there, with their token', async () => {
      expect(await statuses('DELETE', `/api/jobs/${jobB.id}`)).toEqual(nobody);
      for (const person of ['viewer', 'outsider'] as const) {
        const refused = await h.restAs(people[person].token, 'DELETE', `/api/jobs/${jobA.id}`);
        expect([person, refused.status]).toEqual([person, 403]);
      }
      expect((await h.restAs(people.editor.token, 'DELETE', `/api/jobs/${jobA.id}`)).status).toBe(200);
      await wait(h.bounds.gcMs, 'the editor’s ScheduledJob to go', async () => {
        const { body } = await h.api.raw('GET', SCHEDULED_JOBS(namespaceA));
        return !((body.items ?? []) as Obj[]).some((item) => item.status?.jobId === jobA.id);
      });
    }, 120_000);

    it('checks what concerns no one namespace as a non-resource URL under /crondeck', async () => {
      // Reads too: Kubernetes' system:discovery grants every signed-in user `get` on /api/*, not on
      // /crondeck/api/*. A RoleBinding grants no non-resource URL: the viewer's and editor's roles
      // reach none of them.
      for (const [method, path, body] of [
        ['POST', '/api/scheduler/pause', {}],
        ['POST', '/api/scheduler/resume', undefined],
        ['POST', '/api/messages', {}],
        ['GET', '/api/scheduler/status', undefined],
        ['GET', '/api/cron/describe?expr=0%20*%20*%20*%20*', undefined],
        ['GET', '/api/drafts', undefined],
        ['GET', '/api/labels', undefined],
      ] as const) {
        expect({ method, path, ...(await statuses(method, path, body)) }).toEqual({
          method,
          path,
          ...nobody,
        });
      }
      // The refusal names the path as checked: the one a ClusterRole's nonResourceURLs must name.
      expect((await h.restAs(people.outsider.token, 'GET', '/api/scheduler/status')).body.error).toBe(
        `User "${people.outsider.username}" cannot get path "/crondeck/api/scheduler/status"`,
      );
      // The operator, granted /crondeck/api/scheduler/* with a ClusterRoleBinding.
      expect(await h.rest('GET', '/api/scheduler/status')).toMatchObject({
        status: 200,
        body: { paused: false },
      });
    });
  });
}
