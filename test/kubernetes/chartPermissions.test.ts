import type { KubeConfig } from '@kubernetes/client-node';
import { readControllerEnvironment } from '../../src/config/controllerEnvironment';
import { readEnvironment } from '../../src/config/environment';
import { type RunningController, startController } from '../../src/controller/startController';
import type { RunningService } from '../../src/service';
import type { Database } from '../../src/store/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { failImagePull } from '../support/kube/kubeletFaults';
import { kubeConfigFor } from '../support/kube/kubeconfig';
import { createMemoryLogger } from '../support/memoryLogger';
import { helmTemplate, kubeTools, processEnv, type K8sObject } from '../packaging/support';
import { REPORT_SECRET, createScheduledJob, serveOnCluster, startCluster, until } from './cluster';
import { serverDatabase } from './slotCluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The API and the controller with exactly the permissions the chart grants them: the chart's
 * ServiceAccounts, Roles and bindings are applied to the emulated cluster, whose RBAC authorizer
 * answers every other request 403 as a real API server does, and each program speaks with its
 * ServiceAccount's token. The chart is installed in `crondeck` and watches `jobs`, so the Roles
 * (in `jobs`) and the Lease's (in `crondeck`) are both at stake.
 *
 * Every other Kubernetes test speaks as the cluster's admin: this is the one that would see a verb
 * missing from a Role (the controller once could not create the Jobs of backfills and catch-ups),
 * or a program writing where its Role does not reach.
 */

const RELEASE_NAMESPACE = 'crondeck';
const WATCHED = 'jobs';

/** The chart as `helm install rel -n crondeck --set watchNamespace=jobs …` renders it. */
const chart = (...args: string[]) =>
  helmTemplate(['--namespace', RELEASE_NAMESPACE, '--set', `watchNamespace=${WATCHED}`, ...args]);

const RBAC_PATHS: Record<string, string> = {
  ServiceAccount: 'api/v1/namespaces/NS/serviceaccounts',
  Role: 'apis/rbac.authorization.k8s.io/v1/namespaces/NS/roles',
  RoleBinding: 'apis/rbac.authorization.k8s.io/v1/namespaces/NS/rolebindings',
  ClusterRole: 'apis/rbac.authorization.k8s.io/v1/clusterroles',
  ClusterRoleBinding: 'apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
};

/** POSTs `body` to the emulator as the bearer of `token`: the status and the answer. */
async function post(emu: KubeEmulator, token: string, path: string, body: unknown) {
  const response = await fetch(`${emu.url}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Obj };
}

async function asAdmin(emu: KubeEmulator, path: string, body: unknown): Promise<Obj> {
  const answer = await post(emu, emu.adminToken, path, body);
  if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Applies the chart's ServiceAccounts and RBAC objects, as `helm install` creates them. */
async function applyPermissions(emu: KubeEmulator, objects: K8sObject[]): Promise<void> {
  for (const object of objects.filter((o) => RBAC_PATHS[o.kind])) {
    await asAdmin(emu, RBAC_PATHS[object.kind]!.replace('NS', object.metadata.namespace ?? ''), object);
  }
}

/** A token of a ServiceAccount, from its TokenRequest (what `kubectl create token` asks). */
async function tokenOf(emu: KubeEmulator, serviceAccount: string, namespace = RELEASE_NAMESPACE) {
  const request = await asAdmin(
    emu,
    `api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: [] },
    },
  );
  return request.status.token as string;
}

/** A kubeconfig speaking as a ServiceAccount of the release namespace. */
async function kubeConfigOf(emu: KubeEmulator, serviceAccount: string): Promise<KubeConfig> {
  return kubeConfigFor(emu, await tokenOf(emu, serviceAccount));
}

/** The environment of the first container of the chart's Deployment `name`, as its pod sees it. */
function podEnv(objects: K8sObject[], name: string): NodeJS.ProcessEnv {
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name) as Obj;
  return processEnv(deployment.spec.template.spec.containers[0], {
    namespace: RELEASE_NAMESPACE,
    name: `${name}-0`,
  });
}

describe('the API (token mode) and the controller with the permissions the chart grants', () => {
  let emu: KubeEmulator;
  let db: Database;
  let service: RunningService;
  let controller: RunningController;
  const controllerLog = createMemoryLogger();

  beforeAll(async () => {
    kubeTools();
    // Token mode: the API writes the cluster with its own ServiceAccount, as before auth.mode.
    const objects = chart('--set', 'auth.mode=token');
    ({ emu } = await startCluster());
    await asAdmin(emu, 'api/v1/namespaces', { metadata: { name: WATCHED } });
    await applyPermissions(emu, objects);
    db = await serverDatabase();

    const apiEnv = podEnv(objects, 'rel-crondeck');
    service = await serveOnCluster(db, await kubeConfigOf(emu, 'rel-crondeck-api'), undefined, {
      env: {
        POD_NAMESPACE: apiEnv.POD_NAMESPACE!,
        CRONDECK_WATCH_NAMESPACE: apiEnv.CRONDECK_WATCH_NAMESPACE!,
      },
    });
    const controllerEnv = readControllerEnvironment({
      ...podEnv(objects, 'rel-crondeck-controller'),
      DATABASE_URL: 'postgres://given-below',
      SERVICE_REPORT_SECRET: REPORT_SECRET,
    });
    controller = await startController({
      env: readEnvironment({}),
      controllerEnv: { ...controllerEnv, reportUrl: service.url, healthPort: 0 },
      db: { ...db, close: async () => undefined },
      kubeConfig: await kubeConfigOf(emu, 'rel-crondeck-controller'),
      logger: controllerLog,
      // A run stuck before it could start is ended after a second here, not ten minutes.
      tuning: { slotRunIntervalMs: 200, leaseDurationMs: 1500, retryPeriodMs: 200, runStartDeadlineMs: 1000 },
    });
  }, 120_000);
  afterAll(async () => {
    await controller?.stop();
    await service?.stop();
    await emu?.stop();
    await db?.close();
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(service.url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Obj) : undefined };
  };
  const named = (resource: string, name: string) =>
    emu.objects(resource, WATCHED).find((o) => o.metadata.name === name);

  it('runs the whole loop in the watched namespace: jobs, edits, pauses, AlertConfigs, runs by hand and backfills', async () => {
    // The leader's Lease, in the release namespace.
    await until(() => emu.objects('leases', RELEASE_NAMESPACE).length === 1, "the controller's Lease");

    // A job made through the REST API becomes a ScheduledJob where the controller watches, then a CronJob.
    const created = await api('POST', '/api/jobs', {
      name: 'nightly',
      schedule: '* * * * *',
      command: 'echo nightly',
    });
    expect(created.status).toBe(201);
    const id = created.body!.id as number;
    expect(named('scheduledjobs', 'nightly')).toBeDefined();
    await until(() => named('cronjobs', 'nightly'), "nightly's CronJob");

    // One applied with kubectl, as a user does.
    await createScheduledJob(
      kubeConfigFor(emu),
      'applied',
      { schedule: '0 3 * * *', command: 'true' },
      WATCHED,
    );
    await until(() => named('cronjobs', 'applied'), "applied's CronJob");

    // A run by hand: the API starts its Job.
    expect((await api('POST', `/api/jobs/${id}/run`)).status).toBe(200);
    await until(
      () => emu.objects('jobs', WATCHED).some((j) => j.metadata.ownerReferences?.[0]?.name === 'nightly'),
      'the Job of the run by hand',
    );

    // A backfill: the controller starts its Jobs.
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const backfill = await api('POST', `/api/jobs/${id}/backfill`, {
      from: new Date(minute - 3 * 60_000).toISOString(),
      to: new Date(minute - 60_000).toISOString(),
      concurrency: 1,
    });
    expect(backfill).toMatchObject({ status: 202, body: { slots: 3 } });
    await until(
      () => emu.objects('jobs', WATCHED).some((j) => j.metadata.labels?.['crondeck.dev/backfill-id']),
      'the first Job of the backfill',
    );

    // A run whose image cannot be pulled: the controller ends its Job (a patch of its deadline).
    const runByHand = emu
      .objects('jobs', WATCHED)
      .find((j) => j.metadata.ownerReferences?.[0]?.name === 'nightly')!;
    emu.syncJob(WATCHED, runByHand.metadata.name);
    const pod = emu
      .objects('pods', WATCHED)
      .find((p) => p.metadata.ownerReferences?.[0]?.uid === runByHand.metadata.uid)!;
    await failImagePull(emu, WATCHED, pod.metadata.name);
    await until(
      () => named('jobs', runByHand.metadata.name)?.spec.activeDeadlineSeconds !== undefined,
      'the controller to end the run that cannot start',
    );

    // An edit through the API patches the ScheduledJob; the controller replaces the CronJob.
    const edited = await api('PUT', `/api/jobs/${id}`, {
      name: 'nightly',
      schedule: '30 2 * * *',
      command: 'echo nightly',
    });
    expect(edited.status).toBe(200);
    await until(() => named('cronjobs', 'nightly')?.spec.schedule === '30 2 * * *', 'the CronJob replaced');

    // A pause and a resume: the API patches every CronJob.
    expect((await api('POST', '/api/scheduler/pause')).status).toBe(200);
    await until(() => named('cronjobs', 'nightly')?.spec.suspend === true, 'the CronJob suspended');
    expect((await api('POST', '/api/scheduler/resume')).status).toBe(200);
    await until(() => named('cronjobs', 'nightly')?.spec.suspend === false, 'the CronJob resumed');

    // An AlertConfig whose webhook URL is in a Secret: the controller reads it and writes the status.
    await asAdmin(emu, `api/v1/namespaces/${WATCHED}/secrets`, {
      metadata: { name: 'hooks' },
      stringData: { url: 'https://hooks.example.com/crondeck' },
    });
    await asAdmin(emu, `apis/crondeck.dev/v1alpha1/namespaces/${WATCHED}/alertconfigs`, {
      apiVersion: 'crondeck.dev/v1alpha1',
      kind: 'AlertConfig',
      metadata: { name: 'nightly-alerts' },
      spec: {
        jobRef: { name: 'nightly' },
        webhooks: [{ urlFrom: { secretKeyRef: { name: 'hooks', key: 'url' } }, events: ['failed'] }],
      },
    });
    await until(
      () =>
        named('alertconfigs', 'nightly-alerts')?.status?.conditions?.find((c: Obj) => c.type === 'Ready')
          ?.status === 'True',
      'the AlertConfig Ready',
    );

    // Deleting the job through the API deletes its ScheduledJob, whose finalizer the controller runs.
    expect((await api('DELETE', `/api/jobs/${id}`)).status).toBe(200);
    await until(() => !named('scheduledjobs', 'nightly'), 'the ScheduledJob to go');

    const refused = controllerLog.lines.filter((line) => JSON.stringify(line).includes('forbidden'));
    expect(refused).toEqual([]);
  }, 60_000);
});

/** Crondeck's RBAC questions (docs/security.md) for one namespace, as SubjectAccessReview attributes. */
const crondeck = (verb: string, resource: string, subresource?: string) => ({
  verb,
  group: 'crondeck.dev',
  resource,
  ...(subresource ? { subresource } : {}),
});
const batch = (verb: string, resource: string) => ({ verb, group: 'batch', resource });
/** What reading a namespace's jobs asks: lists, one job, its alert configuration. */
const READS = {
  'list scheduledjobs': crondeck('list', 'scheduledjobs'),
  'get scheduledjobs': crondeck('get', 'scheduledjobs'),
  'watch scheduledjobs': crondeck('watch', 'scheduledjobs'),
  'get scheduledjobs/status': crondeck('get', 'scheduledjobs', 'status'),
  'get alertconfigs': crondeck('get', 'alertconfigs'),
};
/** What managing them asks, through Crondeck and through kubectl, run now and backfill included. */
const WRITES = {
  'create scheduledjobs': crondeck('create', 'scheduledjobs'),
  'update scheduledjobs': crondeck('update', 'scheduledjobs'),
  'patch scheduledjobs': crondeck('patch', 'scheduledjobs'),
  'delete scheduledjobs': crondeck('delete', 'scheduledjobs'),
  'create scheduledjobs/run': crondeck('create', 'scheduledjobs', 'run'),
  'update alertconfigs': crondeck('update', 'alertconfigs'),
  // The run-now Job, created with the caller's token from the job's CronJob.
  'get cronjobs': batch('get', 'cronjobs'),
  'create jobs': batch('create', 'jobs'),
};
const TEAM_A = 'team-a';
const TEAM_B = 'team-b';
const PEOPLE = 'people';

/**
 * Kubernetes mode (the chart's default): people sign in with their own tokens, and the API asks
 * the API server what each may do. The chart's ClusterRoles for people are applied to the
 * emulated cluster, whose ClusterRole aggregation controller folds them into the built-in view,
 * edit and admin (test/support/kube/bootstrapPolicy.ts); ServiceAccounts of people are bound to
 * those built-in roles in one namespace, as a cluster's admin grants a team (and one to `view`
 * cluster-wide), and the API's own ServiceAccount asks the SubjectAccessReviews, as `crondeck
 * serve` does for every request; `crondeck serve` itself runs as that account, with the chart's
 * environment, for the requests about no namespace.
 */
describe('who may do what in kubernetes mode, through the chart’s roles and the built-in ones', () => {
  let emu: KubeEmulator;
  let apiToken: string;
  let db: Database;
  let service: RunningService;
  const person = (name: string) => ({
    user: `system:serviceaccount:${PEOPLE}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${PEOPLE}`, 'system:authenticated'],
  });
  /** The API server's answer to the API's SubjectAccessReview: whether `who` may, in `namespace`. */
  const may = async (who: string, attributes: Obj, namespace: string) => {
    const review = await post(emu, apiToken, 'apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { ...person(who), resourceAttributes: { ...attributes, namespace } },
    });
    expect(review.status).toBe(201);
    return review.body.status.allowed as boolean;
  };
  /** Each question's answer for `who` in `namespace`, by name. */
  const answers = async (who: string, namespace: string, questions: Record<string, Obj>) =>
    Object.fromEntries(
      await Promise.all(
        Object.entries(questions).map(async ([name, attributes]) => [
          name,
          await may(who, attributes, namespace),
        ]),
      ),
    );
  const all = (questions: Record<string, Obj>, allowed: boolean) =>
    Object.fromEntries(Object.keys(questions).map((name) => [name, allowed]));

  beforeAll(async () => {
    kubeTools();
    ({ emu } = await startCluster());
    // startCluster made the release namespace.
    for (const namespace of [WATCHED, TEAM_A, TEAM_B, PEOPLE]) {
      await asAdmin(emu, 'api/v1/namespaces', { metadata: { name: namespace } });
    }
    await applyPermissions(emu, chart());
    expect(
      ['view', 'edit', 'admin'].filter(
        (name) =>
          !emu.objects('rbac.authorization.k8s.io/clusterroles').some((r) => r.metadata.name === name),
      ),
    ).toEqual([]);
    for (const [name, role] of [
      ['viewer', 'view'],
      ['editor', 'edit'],
      ['namespace-admin', 'admin'],
      ['outsider', null],
      ['cluster-viewer', null],
    ] as const) {
      await asAdmin(emu, `api/v1/namespaces/${PEOPLE}/serviceaccounts`, { metadata: { name } });
      if (!role) continue;
      await asAdmin(emu, `apis/rbac.authorization.k8s.io/v1/namespaces/${TEAM_A}/rolebindings`, {
        metadata: { name: `${name}-${role}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name, namespace: PEOPLE }],
      });
    }
    // The built-in view in every namespace: a ClusterRoleBinding, which non-resource rules need.
    await asAdmin(emu, 'apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'cluster-viewer-view' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'cluster-viewer', namespace: PEOPLE }],
    });
    apiToken = await tokenOf(emu, 'rel-crondeck-api');

    db = await serverDatabase();
    const apiEnv = podEnv(chart(), 'rel-crondeck');
    service = await serveOnCluster(db, await kubeConfigOf(emu, 'rel-crondeck-api'), undefined, {
      env: Object.fromEntries(
        [
          'POD_NAMESPACE',
          'CRONDECK_WATCH_NAMESPACE',
          'SERVICE_AUTH',
          'SERVICE_AUTH_CACHE_SECONDS',
          'SERVICE_AUTH_REVIEW_TIMEOUT_MS',
        ].flatMap((name) => (apiEnv[name] === undefined ? [] : [[name, apiEnv[name]!]])),
      ),
    });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await emu?.stop();
    await db?.close();
  });

  it('lets a team with the built-in edit on its namespace manage and run its jobs there, and nowhere else', async () => {
    expect(await answers('editor', TEAM_A, { ...READS, ...WRITES })).toEqual(
      all({ ...READS, ...WRITES }, true),
    );
    expect(await answers('editor', TEAM_B, { ...READS, ...WRITES })).toEqual(
      all({ ...READS, ...WRITES }, false),
    );
  });

  it('lets a viewer read, and neither change nor run, its namespace’s jobs', async () => {
    expect(await answers('viewer', TEAM_A, READS)).toEqual(all(READS, true));
    expect(await answers('viewer', TEAM_A, WRITES)).toEqual({
      ...all(WRITES, false),
      // The built-in view reads CronJobs: what a run now reads, not what it writes.
      'get cronjobs': true,
    });
    expect(await answers('viewer', TEAM_B, READS)).toEqual(all(READS, false));
  });

  it('gives the built-in admin what edit gives (view ⊂ edit ⊂ admin), and someone bound to nothing nothing', async () => {
    expect(await answers('namespace-admin', TEAM_A, { ...READS, ...WRITES })).toEqual(
      all({ ...READS, ...WRITES }, true),
    );
    for (const namespace of [TEAM_A, TEAM_B]) {
      expect(await answers('outsider', namespace, { ...READS, ...WRITES })).toEqual(
        all({ ...READS, ...WRITES }, false),
      );
    }
  });

  /** The API server's answer to the API's non-resource SubjectAccessReview for `who`. */
  const mayCall = async (who: string, verb: string, path: string) => {
    const review = await post(emu, apiToken, 'apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { ...person(who), nonResourceAttributes: { verb, path } },
    });
    return review.body.status.allowed as boolean;
  };

  it('gives nobody pause, resume or the mailbox through the chart’s roles: explicit grants only', async () => {
    for (const who of ['viewer', 'editor', 'namespace-admin', 'outsider', 'cluster-viewer']) {
      for (const [verb, path] of [
        ['post', '/crondeck/api/scheduler/pause'],
        ['post', '/crondeck/api/scheduler/resume'],
        ['get', '/crondeck/api/drafts'],
        ['get', '/crondeck/api/labels/1/messages'],
        ['get', '/crondeck/api/messages/1'],
        ['post', '/crondeck/api/messages'],
        ['delete', '/crondeck/api/drafts/1'],
      ] as const) {
        expect([who, verb, path, await mayCall(who, verb, path)]).toEqual([who, verb, path, false]);
      }
    }
  });

  /** The service's answer to `who`'s request: its status, and the error of a refusal. */
  const callAs = async (who: string, method: string, path: string) => {
    const token = await tokenOf(emu, who, PEOPLE);
    const response = await fetch(service.url + path, {
      method,
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as Obj;
    return { status: response.status, ...(response.status === 403 ? { error: body.error } : {}) };
  };
  /** What the dashboard reads about no namespace, and the mailbox's reads. */
  const DASHBOARD_READS = ['/api/scheduler/status', '/api/cron/describe?expr=0%203%20*%20*%20*'];
  const MAILBOX_READS = ['/api/drafts', '/api/labels', '/api/labels/1/messages', '/api/messages/1'];

  it('refuses a signed-in user granted nothing the scheduler’s status and the mailbox’s reads, whatever system:discovery grants', async () => {
    // Kubernetes' bootstrap system:discovery grants every authenticated user `get` on /api/* (the
    // API server's own discovery): Crondeck asks about its paths under /crondeck, where it does not.
    expect(await mayCall('outsider', 'get', '/api/scheduler/status')).toBe(true);
    for (const path of [...DASHBOARD_READS, ...MAILBOX_READS]) {
      const checked = `/crondeck${path.split('?')[0]}`;
      expect([path, await callAs('outsider', 'GET', path)]).toEqual([
        path,
        {
          status: 403,
          error: `User "system:serviceaccount:${PEOPLE}:outsider" cannot get path "${checked}"`,
        },
      ]);
    }
  });

  it('lets the chart’s roles read the scheduler’s status and describe schedules where bound cluster-wide, never through a RoleBinding', async () => {
    const statuses = async (who: string, paths: string[]) =>
      Object.fromEntries(
        await Promise.all(paths.map(async (path) => [path, (await callAs(who, 'GET', path)).status])),
      );
    const each = (paths: string[], status: number) => Object.fromEntries(paths.map((path) => [path, status]));
    // The built-in view, bound with a ClusterRoleBinding: the chart's view rules aggregated into it.
    expect(await statuses('cluster-viewer', DASHBOARD_READS)).toEqual(each(DASHBOARD_READS, 200));
    expect(await statuses('cluster-viewer', MAILBOX_READS)).toEqual(each(MAILBOX_READS, 403));
    expect((await callAs('cluster-viewer', 'POST', '/api/scheduler/pause')).status).toBe(403);
    // A RoleBinding grants no non-resource URL, whatever its role holds.
    for (const who of ['viewer', 'editor', 'namespace-admin']) {
      expect([who, await statuses(who, DASHBOARD_READS)]).toEqual([who, each(DASHBOARD_READS, 403)]);
    }
  });

  it('lets the API’s own ServiceAccount review tokens and access, read and pause, and write nothing else', async () => {
    const token = await tokenOf(emu, 'editor', PEOPLE);
    const reviewed = await post(emu, apiToken, 'apis/authentication.k8s.io/v1/tokenreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token },
    });
    expect(reviewed).toMatchObject({
      status: 201,
      body: { status: { authenticated: true, user: { username: `system:serviceaccount:${PEOPLE}:editor` } } },
    });
    const api = 'system:serviceaccount:crondeck:rel-crondeck-api';
    const asApi = async (attributes: Obj) => {
      const review = await post(emu, emu.adminToken, 'apis/authorization.k8s.io/v1/subjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: api,
          groups: ['system:serviceaccounts', 'system:authenticated'],
          resourceAttributes: attributes,
        },
      });
      return review.body.status.allowed as boolean;
    };
    const inWatched = async (questions: Record<string, Obj>) =>
      Object.fromEntries(
        await Promise.all(
          Object.entries(questions).map(async ([name, attributes]) => [
            name,
            await asApi({ ...attributes, namespace: WATCHED }),
          ]),
        ),
      );
    expect(
      await inWatched({
        'list scheduledjobs': crondeck('list', 'scheduledjobs'),
        'watch alertconfigs': crondeck('watch', 'alertconfigs'),
        'list cronjobs': batch('list', 'cronjobs'),
        'patch cronjobs': batch('patch', 'cronjobs'),
      }),
    ).toEqual({
      'list scheduledjobs': true,
      'watch alertconfigs': true,
      'list cronjobs': true,
      'patch cronjobs': true,
    });
    expect(
      await inWatched({
        'create scheduledjobs': crondeck('create', 'scheduledjobs'),
        'patch scheduledjobs': crondeck('patch', 'scheduledjobs'),
        'delete scheduledjobs': crondeck('delete', 'scheduledjobs'),
        'create jobs': batch('create', 'jobs'),
      }),
    ).toEqual({
      'create scheduledjobs': false,
      'patch scheduledjobs': false,
      'delete scheduledjobs': false,
      'create jobs': false,
    });
    // And the API server refuses it as it would refuse the service itself.
    const created = await post(
      emu,
      apiToken,
      `apis/crondeck.dev/v1alpha1/namespaces/${WATCHED}/scheduledjobs`,
      {
        apiVersion: 'crondeck.dev/v1alpha1',
        kind: 'ScheduledJob',
        metadata: { name: 'by-the-service' },
        spec: { schedule: '0 3 * * *', command: 'true' },
      },
    );
    expect(created.status).toBe(403);
  });
});
