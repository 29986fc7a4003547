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

/** The chart as `helm install rel -n crondeck --set watchNamespace=jobs` renders it. */
const chart = () => helmTemplate(['--namespace', RELEASE_NAMESPACE, '--set', `watchNamespace=${WATCHED}`]);

const RBAC_PATHS: Record<string, string> = {
  ServiceAccount: 'api/v1/namespaces/NS/serviceaccounts',
  Role: 'apis/rbac.authorization.k8s.io/v1/namespaces/NS/roles',
  RoleBinding: 'apis/rbac.authorization.k8s.io/v1/namespaces/NS/rolebindings',
  ClusterRole: 'apis/rbac.authorization.k8s.io/v1/clusterroles',
  ClusterRoleBinding: 'apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
};

async function asAdmin(emu: KubeEmulator, path: string, body: unknown): Promise<Obj> {
  const response = await fetch(`${emu.url}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${emu.adminToken}` },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Obj;
  if (response.status !== 201) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Applies the chart's ServiceAccounts and RBAC objects, as `helm install` creates them. */
async function applyPermissions(emu: KubeEmulator, objects: K8sObject[]): Promise<void> {
  for (const object of objects.filter((o) => RBAC_PATHS[o.kind])) {
    await asAdmin(emu, RBAC_PATHS[object.kind]!.replace('NS', object.metadata.namespace ?? ''), object);
  }
}

/** A kubeconfig speaking as a ServiceAccount, with a token from its TokenRequest. */
async function kubeConfigOf(emu: KubeEmulator, serviceAccount: string): Promise<KubeConfig> {
  const request = await asAdmin(
    emu,
    `api/v1/namespaces/${RELEASE_NAMESPACE}/serviceaccounts/${serviceAccount}/token`,
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [] } },
  );
  return kubeConfigFor(emu, request.status.token as string);
}

/** The environment of the first container of the chart's Deployment `name`, as its pod sees it. */
function podEnv(objects: K8sObject[], name: string): NodeJS.ProcessEnv {
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name) as Obj;
  return processEnv(deployment.spec.template.spec.containers[0], {
    namespace: RELEASE_NAMESPACE,
    name: `${name}-0`,
  });
}

describe('the API and the controller with the permissions the chart grants', () => {
  let emu: KubeEmulator;
  let db: Database;
  let service: RunningService;
  let controller: RunningController;
  const controllerLog = createMemoryLogger();

  beforeAll(async () => {
    kubeTools();
    const objects = chart();
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
