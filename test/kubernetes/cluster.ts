import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { readEnvironment } from '../../src/config/environment';
import { crondeckCrds } from '../../src/controller/crds/definitions';
import { type RunningController, startController } from '../../src/controller/startController';
import type { Clock } from '../../src/domain/clock';
import { reportTokenFor } from '../../src/domain/reportToken';
import type { Database } from '../../src/store/database';
import { startService } from '../../src/service';
import { KubeEmulator } from '../support/kube/emulator';
import { kubeConfigFor } from '../support/kube/kubeconfig';
import { createMemoryLogger } from '../support/memoryLogger';
import type { TestService } from '../support/service';

export const NAMESPACE = 'crondeck';
export const REPORT_SECRET = 'a-report-secret-of-at-least-32-characters';

/** A Kubernetes object as the emulator answers it: only its UID is read. */
type WithUid = { metadata?: { uid?: string } };

/**
 * A run's pod (`crondeck run`) reporting its final attempt over HTTP, as failed unless `fields`
 * say otherwise, started and finished at `at`: the service's answer.
 */
export function reportFinalAttempt(
  service: TestService,
  run: { jobId: number; job: WithUid; pod: WithUid; at: Date },
  fields: Record<string, unknown>,
) {
  const at = run.at.toISOString();
  return service.request(
    'POST',
    `/api/jobs/${run.jobId}/reports`,
    {
      podUid: run.pod.metadata?.uid,
      runUid: run.job.metadata?.uid,
      attempt: 0,
      final: true,
      status: 'failed',
      startedAt: at,
      finishedAt: at,
      ...fields,
    },
    { authorization: `Bearer ${reportTokenFor(REPORT_SECRET, run.jobId)}` },
  );
}

/** The emulated cluster with Crondeck's CRDs installed (as `kubectl apply -f crds/` does). */
export async function startCluster(
  options: { now?: () => Date } = {},
): Promise<{ emu: KubeEmulator; kc: KubeConfig }> {
  const emu = await KubeEmulator.start({ bookmarkLeadMs: 200, ...options });
  const kc = kubeConfigFor(emu);
  // As `kubectl apply -f crds/` sends them: raw JSON. (client-node's typed model would drop the
  // `x-kubernetes-*` keys, which it only knows by their camel-case property names.)
  for (const crd of crondeckCrds()) {
    const response = await fetch(`${emu.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${emu.adminToken}` },
      body: JSON.stringify(crd),
    });
    if (response.status !== 201) throw new Error(`CRD refused: ${response.status} ${await response.text()}`);
  }
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const custom = kc.makeApiClient(CustomObjectsApi);
  await until(async () => {
    try {
      await custom.listNamespacedCustomObject({
        group: 'crondeck.dev',
        version: 'v1alpha1',
        namespace: NAMESPACE,
        plural: 'scheduledjobs',
      });
      return true;
    } catch {
      return false;
    }
  }, 'the CRDs to be established');
  return { emu, kc };
}

/** Creates a ScheduledJob (in the test namespace) through the real client, as `kubectl apply` would. */
export async function createScheduledJob(
  kc: KubeConfig,
  name: string,
  spec: Record<string, unknown>,
  namespace = NAMESPACE,
) {
  await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: 'crondeck.dev',
    version: 'v1alpha1',
    namespace,
    plural: 'scheduledjobs',
    body: { apiVersion: 'crondeck.dev/v1alpha1', kind: 'ScheduledJob', metadata: { name }, spec },
  });
}

/** `crondeck controller` in this process, on the emulator and the test database. */
export async function runController(
  kc: KubeConfig,
  db: Database,
  options: {
    identity?: string;
    leaderElection?: boolean;
    reportUrl?: string;
    /** The cluster's clock, when the test moves time on (the emulator's `now`). */
    clock?: Clock;
    reportGraceMs?: number;
    /** How often it looks for catch-up and backfill runs to start. */
    slotRunIntervalMs?: number;
    /** Secrets of its namespace no job may name (CRONDECK_OWN_SECRETS). */
    ownSecrets?: string[];
    /** The namespace it watches (null: every one, as with CRONDECK_WATCH_NAMESPACE=*). */
    watchNamespace?: string | null;
  } = {},
): Promise<RunningController & { logger: ReturnType<typeof createMemoryLogger> }> {
  const logger = createMemoryLogger();
  const running = await startController({
    env: readEnvironment({}),
    controllerEnv: {
      reportSecret: REPORT_SECRET,
      watchNamespace: options.watchNamespace === undefined ? NAMESPACE : options.watchNamespace,
      homeNamespace: NAMESPACE,
      leaseNamespace: NAMESPACE,
      image: 'ghcr.io/crondeck/crondeck:test',
      reportUrl: options.reportUrl ?? 'http://127.0.0.1:7433',
      identity: options.identity ?? 'controller-0',
      leaderElection: options.leaderElection ?? false,
      healthPort: 0,
      resyncSeconds: 3600,
      ownSecrets: options.ownSecrets,
    },
    // The controller closes its database on stop; the test keeps it for the next one.
    db: { ...db, close: async () => undefined },
    kubeConfig: kc,
    logger,
    clock: options.clock,
    tuning: {
      resyncMs: 60 * 60_000,
      reportGraceMs: options.reportGraceMs ?? 100,
      slotRunIntervalMs: options.slotRunIntervalMs,
      leaseDurationMs: 1500,
      retryPeriodMs: 200,
    },
  });
  return { ...running, logger };
}

/**
 * Waits until the controller has settled a finished Kubernetes Job for good: recorded the run its
 * pod never reported (or found it recorded), or found that it ran nothing (its runner was refused
 * the slot). It looks at the Job no more after that (its RunReconciler's `settled` memo, read here
 * as nothing else shows it), so what the database holds then is all it will ever write for the Job:
 * a test that says the controller adds nothing asserts after this rather than after a sleep.
 */
export async function untilSettled(
  controller: RunningController,
  kubeJob: { metadata?: { uid?: string; name?: string } },
): Promise<void> {
  const reconciler = (controller.manager as unknown as { runReconciler?: { settled?: unknown } })
    .runReconciler;
  const settled = reconciler?.settled;
  if (!(settled instanceof Set))
    throw new Error('the controller has no RunReconciler `settled` memo to read');
  const uid = kubeJob.metadata?.uid;
  await until(() => settled.has(uid), `the controller to settle ${kubeJob.metadata?.name}`);
}

/** Polls `check` until it holds; fails naming what it waited for. */
export async function until<T>(
  check: () => Promise<T | undefined | null | false> | T,
  what: string,
  ms = 15_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A yearly schedule whose last fire time was a few minutes ago. The controller counts the fire
 * times between a Job's own and its end (real time, as the emulator sets it) as skipped; on this
 * schedule there are none, whatever day the suite runs.
 */
export function recentYearlyFire(): { schedule: string; firedAt: (minutesLater?: number) => Date } {
  const at = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 5 * 60_000);
  const schedule = `${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
  return { schedule, firedAt: (minutesLater = 0) => new Date(at.getTime() + minutesLater * 60_000) };
}

/**
 * `crondeck serve` with SERVICE_RUNTIME=kubernetes: the REST API writes the cluster. With `clock`,
 * its time is the test's (the cluster's); the slot judge then judges only when the test calls
 * `judge.judge(now)`.
 */
export function serveOnCluster(
  db: Database,
  kc: Parameters<typeof startService>[0]['kubeConfig'],
  alerting?: Parameters<typeof startService>[0]['alerting'],
  options: { clock?: Clock; env?: Record<string, string> } = {},
) {
  return startService({
    alerting,
    env: readEnvironment({
      PORT: '0',
      SERVICE_RUNTIME: 'kubernetes',
      POD_NAMESPACE: NAMESPACE,
      SERVICE_REPORT_SECRET: REPORT_SECRET,
      ...options.env,
    }),
    db: { ...db, close: async () => undefined },
    logger: createMemoryLogger(),
    kubeConfig: kc,
    ...(options.clock ? { clock: options.clock, slotJudgeIntervalMs: null } : {}),
  });
}
