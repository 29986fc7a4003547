import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { crondeckCrds } from '../../src/controller/crds/definitions';
import { VERSION } from '../../src/version';
import { Receiver } from '../alerts/support/receiver';
import { type ClusterApi, clusterApi } from './clusterApi';
import { CrondeckProcess, crondeckArgv, freePort } from './crondeckProcess';
import { type E2eDatabase, provideDatabase } from './database';
import { hasSchedulableNode, KubeletPlayer } from './kubeletPlayer';
import { installChart, SERVICE_ACCOUNTS } from './helmChart';
import { bindInNamespace, grantNonResourceUrls, type Identity, serviceAccountIdentity } from './identities';
import { writeServiceAccountKubeconfig } from './serviceAccountKubeconfig';
import { addressFacingNodes } from './reportAddress';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The cluster the suite runs against, and what differs between a real one and the emulator. */
export interface E2eTarget {
  /** A kubeconfig file whose current context is the cluster. */
  kubeconfig: string;
  /** Whether the cluster's own controllers fire CronJobs on minute boundaries in real time. */
  real: boolean;
  /**
   * Emulator only: moves the cluster's clock to the next minute boundary, so that its CronJob
   * controller fires now rather than in up to a minute. Nothing on a real cluster.
   */
  hastenScheduledFire(): void;
  stop(): Promise<void>;
}

/**
 * How `crondeck serve` authenticates /api (CRONDECK_E2E_AUTH): `kubernetes` (the chart's default),
 * each caller's own token with RBAC deciding, the suite calling as an operator of its namespace;
 * `token`, one shared token (only where serve listens beyond loopback).
 */
export type E2eAuth = 'kubernetes' | 'token';

export function e2eAuth(env: NodeJS.ProcessEnv = process.env): E2eAuth {
  const mode = env.CRONDECK_E2E_AUTH || 'kubernetes';
  if (mode !== 'kubernetes' && mode !== 'token') {
    throw new Error(`CRONDECK_E2E_AUTH must be kubernetes or token, not ${mode}`);
  }
  return mode;
}

export const LEASE_NAME = 'crondeck-controller';
export const CONTROLLER_IDENTITIES = ['e2e-controller-a', 'e2e-controller-b'];
const REPORT_SECRET = randomBytes(24).toString('hex');

/** Everything the suite talks to: the cluster's API, `crondeck serve`'s REST API, a webhook receiver. */
export interface E2eHarness {
  api: ClusterApi;
  namespace: string;
  auth: E2eAuth;
  /**
   * Kubernetes mode: who `rest` calls as, a ServiceAccount of the namespace with the built-in
   * `edit` there and the scheduler's non-resource URLs (docs/security.md's operator); else null.
   */
  operator: Identity | null;
  serveUrl: string;
  receiver: Receiver;
  controllers: CrondeckProcess[];
  /** The image of the ScheduledJob with spec.image (only its /bin/sh is used). */
  jobImage: string;
  /** Bounds of the waits: a real cluster pulls images and fires on minute boundaries. */
  bounds: { fireMs: number; runMs: number; settleMs: number; gcMs: number };
  rest(method: string, path: string, body?: unknown): Promise<{ status: number; body: Obj }>;
  /** The same with `bearer` as the Authorization (null: none). */
  restAs(
    bearer: string | null,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Obj }>;
  /** What the processes said last, for a failure's message. */
  diagnostics(): string;
  stop(): Promise<void>;
}

/**
 * Sets the stage on the target's cluster: a namespace of the run's own with the chart installed in
 * it (its CRDs, ServiceAccounts and Roles; its Deployments at zero), a PostgreSQL database,
 * `crondeck serve` in Kubernetes mode and two `crondeck controller`s sharing a Lease, each speaking
 * as its ServiceAccount, all as child processes of the real CLI on this machine, and, when the cluster has no node
 * that can run pods, the kubelet player. Settings (environment): CRONDECK_E2E_KUBELET
 * (auto|player|cluster), CRONDECK_E2E_IMAGE, CRONDECK_E2E_JOB_IMAGE, CRONDECK_E2E_REPORT_URL,
 * CRONDECK_E2E_CLI (sources|dist), CRONDECK_E2E_HELM=0 (the CRDs alone, not the chart), DATABASE_URL
 * (docs/e2e.md).
 */
export async function startE2e(target: E2eTarget, env: NodeJS.ProcessEnv = process.env): Promise<E2eHarness> {
  const api = clusterApi(target.kubeconfig);
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    // Each is tried whatever the others did; one that fails says so (a namespace left behind).
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: Error) => console.warn(`e2e cleanup failed: ${error.message}`));
    }
  };
  const processes: CrondeckProcess[] = [];
  let player: KubeletPlayer | null = null;
  const diagnostics = () =>
    [
      ...processes.map((p) => p.tail()),
      ...(player ? [`--- kubelet player ---\n${player.problems.slice(-10).join('\n')}`] : []),
    ].join('\n');
  try {
    const namespace = `crondeck-e2e-${randomBytes(3).toString('hex')}`;
    await api.core.createNamespace({ body: { metadata: { name: namespace } } });
    cleanups.push(() => api.core.deleteNamespace({ name: namespace }));
    // As users install it: the chart, whose Roles the processes then speak under. `0`: the CRDs
    // alone, the processes with the kubeconfig's own credentials.
    const withChart = env.CRONDECK_E2E_HELM !== '0';
    const auth = e2eAuth(env);
    if (withChart) {
      const release = await installChart(target.kubeconfig, namespace, auth);
      cleanups.push(release.uninstall);
    } else {
      await installCrds(api);
    }
    await crdsEstablished(api);
    const db: E2eDatabase = await provideDatabase(env);
    cleanups.push(() => db.close());

    const mode = env.CRONDECK_E2E_KUBELET ?? 'auto';
    const playing = mode === 'player' || (mode === 'auto' && !(await hasSchedulableNode(api)));
    if (playing) {
      player = await KubeletPlayer.start(api, namespace, crondeckArgv(env));
      const started = player;
      cleanups.push(() => started.stop());
    }
    // A given report URL says where serve listens too: its port.
    const givenUrl = env.CRONDECK_E2E_REPORT_URL ? new URL(env.CRONDECK_E2E_REPORT_URL) : null;
    const port = givenUrl?.port ? Number(givenUrl.port) : await freePort();
    const reportUrl = givenUrl?.toString() ?? (await workOutReportUrl(api, playing, port));
    // Pods that report from elsewhere than loopback (a cluster's nodes) reach serve from outside
    // this machine: it listens there, with a token for its API (pods report with per-job tokens).
    const host = new URL(reportUrl).hostname === '127.0.0.1' ? '127.0.0.1' : '0.0.0.0';
    const apiToken = host === '127.0.0.1' || auth === 'kubernetes' ? null : randomBytes(24).toString('hex');
    const credentials = withChart
      ? await chartCredentials(api, namespace, cleanups)
      : { serve: target.kubeconfig, controller: target.kubeconfig };
    const operator = auth === 'kubernetes' ? await operatorOf(api, namespace, cleanups) : null;
    const common = {
      DATABASE_URL: db.url,
      SERVICE_REPORT_SECRET: REPORT_SECRET,
      POD_NAMESPACE: namespace,
      CRONDECK_WATCH_NAMESPACE: namespace,
      SERVICE_LOG_LEVEL: 'warn',
    };

    const serve = CrondeckProcess.start('crondeck serve', ['serve'], {
      ...common,
      KUBECONFIG: credentials.serve,
      SERVICE_RUNTIME: 'kubernetes',
      PORT: String(port),
      HOST: host,
      ...(auth === 'kubernetes' ? { SERVICE_AUTH: 'kubernetes' } : {}),
      ...(apiToken ? { SERVICE_API_TOKEN: apiToken } : {}),
    });
    processes.push(serve);
    cleanups.push(() => serve.stop());
    const serveUrl = `http://127.0.0.1:${port}`;
    await within(60_000, 'crondeck serve to answer /health', diagnostics, async () => {
      if (!serve.running) throw new Error(`crondeck serve exited\n${serve.tail()}`);
      return (await fetch(`${serveUrl}/health`).catch(() => null))?.ok;
    });

    const controllers = CONTROLLER_IDENTITIES.map((identity) =>
      CrondeckProcess.start(`crondeck controller (${identity})`, ['controller'], {
        ...common,
        KUBECONFIG: credentials.controller,
        POD_NAME: identity,
        CRONDECK_IMAGE: env.CRONDECK_E2E_IMAGE || `ghcr.io/crondeck/crondeck:${VERSION}`,
        CRONDECK_REPORT_URL: reportUrl,
        CRONDECK_LEADER_ELECTION: 'true',
        CRONDECK_HEALTH_PORT: '0',
      }),
    );
    processes.push(...controllers);
    for (const controller of controllers) cleanups.push(() => controller.stop());
    // First of the cleanups: the ScheduledJobs go while a controller runs their finalizers, or
    // they would keep the namespace Terminating on a real cluster.
    cleanups.push(() => deleteScheduledJobs(api, namespace));
    await within(60_000, 'a controller to hold the Lease', diagnostics, async () => {
      const lease = await api.leases
        .readNamespacedLease({ name: LEASE_NAME, namespace })
        .catch(() => undefined);
      return CONTROLLER_IDENTITIES.includes(lease?.spec?.holderIdentity ?? '');
    });

    const receiver = await Receiver.start();
    cleanups.push(() => receiver.close());
    const restAs: E2eHarness['restAs'] = async (bearer, method, path, body) => {
      const response = await fetch(serveUrl + path, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Obj) : {} };
    };
    return {
      api,
      namespace,
      auth,
      operator,
      serveUrl,
      receiver,
      controllers,
      jobImage: env.CRONDECK_E2E_JOB_IMAGE || 'docker.io/library/busybox:1.36',
      bounds: target.real
        ? { fireMs: 75_000, runMs: 90_000, settleMs: 3000, gcMs: 60_000 }
        : { fireMs: 15_000, runMs: 30_000, settleMs: 1500, gcMs: 15_000 },
      rest: (method, path, body) => restAs(operator?.token ?? apiToken, method, path, body),
      restAs,
      diagnostics,
      stop,
    };
  } catch (error) {
    const message = `${(error as Error).message}\n${diagnostics()}`;
    await stop();
    throw new Error(message, { cause: error });
  }
}

/** Deletes every ScheduledJob of the namespace and waits (60 s at most) until they are gone. */
async function deleteScheduledJobs(api: ClusterApi, namespace: string): Promise<void> {
  const path = `/apis/crondeck.dev/v1alpha1/namespaces/${namespace}/scheduledjobs`;
  const { body: list } = await api.raw('GET', path);
  for (const item of (list.items ?? []) as Obj[]) {
    const deleted = await api.raw('DELETE', `${path}/${item.metadata.name}`);
    if (deleted.status >= 300 && deleted.status !== 404) {
      throw new Error(`could not delete ScheduledJob ${item.metadata.name}: ${JSON.stringify(deleted.body)}`);
    }
  }
  await within(
    60_000,
    'the ScheduledJobs to be deleted',
    () => '',
    async () => {
      const { body } = await api.raw('GET', path);
      return ((body.items ?? []) as Obj[]).length === 0;
    },
  );
}

/**
 * Kubeconfig files speaking as the chart's ServiceAccounts of the API and the controller, in a
 * directory removed with the rest.
 */
async function chartCredentials(
  api: ClusterApi,
  namespace: string,
  cleanups: (() => Promise<unknown>)[],
): Promise<{ serve: string; controller: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'crondeck-e2e-credentials-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const serve = join(dir, 'serve.kubeconfig');
  const controller = join(dir, 'controller.kubeconfig');
  await writeServiceAccountKubeconfig(api, namespace, SERVICE_ACCOUNTS.api, serve);
  await writeServiceAccountKubeconfig(api, namespace, SERVICE_ACCOUNTS.controller, controller);
  return { serve, controller };
}

/**
 * The suite's own caller in kubernetes mode, granted as docs/security.md says to grant a team and
 * an operator: the built-in `edit` in the namespace (jobs, runs, backfills; the run-now Job's
 * `create jobs`), and the scheduler's pause, resume and status through a ClusterRole of
 * non-resource URLs (removed with the rest).
 */
async function operatorOf(
  api: ClusterApi,
  namespace: string,
  cleanups: (() => Promise<unknown>)[],
): Promise<Identity> {
  const operator = await serviceAccountIdentity(api, namespace, 'e2e-operator');
  await bindInNamespace(api, namespace, operator, { clusterRole: 'edit' });
  const revoke = await grantNonResourceUrls(api, `${namespace}-scheduler`, operator, {
    // Crondeck checks its paths under /crondeck (src/auth/accessRules.ts).
    nonResourceURLs: ['/crondeck/api/scheduler/*'],
    verbs: ['get', 'post'],
  });
  cleanups.push(revoke);
  return operator;
}

/** Polls `check` until it gives a truthy value, for at most `ms`; fails naming what it waited for. */
export async function within<T>(
  ms: number,
  what: string,
  diagnostics: () => string,
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
): Promise<T> {
  const deadline = Date.now() + ms;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const why = lastError ? ` (last error: ${(lastError as Error).message})` : '';
      throw new Error(`timed out after ${ms} ms waiting for ${what}${why}\n${diagnostics()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** `kubectl apply -f crds/` through the API: created, or replaced where they exist. */
async function installCrds(api: ClusterApi): Promise<void> {
  for (const crd of crondeckCrds() as Obj[]) {
    const created = await api.raw('POST', CRD_PATH, crd);
    if (created.status === 409) {
      const current = await api.raw('GET', `${CRD_PATH}/${crd.metadata.name}`);
      const replaced = await api.raw('PUT', `${CRD_PATH}/${crd.metadata.name}`, {
        ...crd,
        metadata: { ...crd.metadata, resourceVersion: current.body.metadata?.resourceVersion },
      });
      if (replaced.status !== 200) throw new Error(`CRD refused: ${JSON.stringify(replaced.body)}`);
    } else if (created.status !== 201) {
      throw new Error(`CRD refused: ${created.status} ${JSON.stringify(created.body)}`);
    }
  }
}

/** What `kubectl wait --for=condition=Established` waits for: the API serves the kinds. */
async function crdsEstablished(api: ClusterApi): Promise<void> {
  for (const crd of crondeckCrds() as Obj[]) {
    await within(
      60_000,
      `CRD ${crd.metadata.name} to be Established`,
      () => '',
      async () => {
        const { body } = await api.raw('GET', `${CRD_PATH}/${crd.metadata.name}`);
        return ((body.status?.conditions ?? []) as Obj[]).some(
          (c) => c.type === 'Established' && c.status === 'True',
        );
      },
    );
  }
}

async function workOutReportUrl(api: ClusterApi, playing: boolean, port: number): Promise<string> {
  if (playing) return `http://127.0.0.1:${port}`;
  const { items } = await api.core.listNode();
  const nodeAddresses = items.flatMap((node) =>
    (node.status?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address),
  );
  const address = addressFacingNodes(nodeAddresses, networkInterfaces());
  if (!address) {
    throw new Error(
      `no address of this machine shares a network with the nodes (${nodeAddresses.join(', ')}): ` +
        'set CRONDECK_E2E_REPORT_URL to a URL of this machine that pods can reach',
    );
  }
  return `http://${address}:${port}`;
}
