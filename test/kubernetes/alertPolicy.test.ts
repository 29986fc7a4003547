import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { RunningController } from '../../src/controller/startController';
import type { RunningService } from '../../src/service';
import type { Database } from '../../src/store/database';
import { findJobForResource } from '../../src/store/resourceJobs';
import { untilNoAlertInFlight } from '../alerts/support/outbox';
import { Receiver } from '../alerts/support/receiver';
import { ManualClock } from '../support/clock';
import { createTestDatabase, onPostgresServer } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { failPodBeforeStart, runPod } from '../support/kube/kubelet';
import { startTestService, type TestService } from '../support/service';
import {
  createScheduledJob,
  NAMESPACE,
  recentYearlyFire,
  runController,
  serveOnCluster,
  startCluster,
  until,
} from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** An AlertConfig as `kubectl apply` would send it. */
function createAlertConfig(kc: KubeConfig, name: string, spec: Obj) {
  return kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: 'crondeck.dev',
    version: 'v1alpha1',
    namespace: NAMESPACE,
    plural: 'alertconfigs',
    body: { apiVersion: 'crondeck.dev/v1alpha1', kind: 'AlertConfig', metadata: { name }, spec },
  });
}

describe('the alert policy on the emulated cluster', () => {
  let emu: KubeEmulator;
  let kc: KubeConfig;
  let db: Database;
  let receiver: Receiver;

  beforeEach(async () => {
    ({ emu, kc } = await startCluster());
    db = await createTestDatabase();
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    await receiver.close();
    await emu.stop();
    await db.close();
  });

  const get = (resource: string, name: string): Obj | undefined =>
    emu.objects(resource, NAMESPACE).find((o) => o.metadata?.name === name);
  const condition = (type: string) =>
    get('scheduledjobs', 'flaky')?.status?.conditions?.find((c: Obj) => c.type === type);
  const events = (reason: string) =>
    emu.objects('events', NAMESPACE).filter((e) => e.involvedObject?.name === 'flaky' && e.reason === reason);

  /** The CronJob controller fires at `at`, the Job controller makes the pod. */
  function fire(at: Date): { job: Obj; pod: Obj } {
    const job = emu.fireCronJob(NAMESPACE, 'flaky', at);
    emu.syncJob(NAMESPACE, job.metadata.name);
    const pod = emu
      .objects('pods', NAMESPACE)
      .find((p) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid)!;
    return { job, pod };
  }

  it('suspends a job after N failed runs, with a condition and an Event, until it is switched on or run', async () => {
    if (!onPostgresServer) return; // the REST API in Kubernetes mode needs a PostgreSQL server
    let service: RunningService | undefined;
    let controller: RunningController | undefined;
    try {
      service = await serveOnCluster(db, kc, { pollIntervalMs: 50 });
      controller = await runController(kc, db, { reportUrl: service.url });
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(service!.url + path, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as Obj };
      };
      const yearly = recentYearlyFire();
      await createScheduledJob(kc, 'flaky', {
        schedule: yearly.schedule,
        timeZone: 'UTC',
        command: 'echo broken >&2; exit 1',
        alertPolicy: { suspendAfterFailures: 2 },
      });
      await createAlertConfig(kc, 'flaky-alerts', {
        jobRef: { name: 'flaky' },
        webhooks: [{ url: `${receiver.url}/hook`, events: ['suspended'] }],
      });
      await until(() => get('cronjobs', 'flaky'), 'the CronJob');
      const id = (await until(() => findJobForResource(db.pool, NAMESPACE, 'flaky'), 'the job row')).id;
      await until(
        async () => (await call('GET', `/api/jobs/${id}/alerts`)).body.policy?.suspendAfterFailures === 2,
        'the policy from the ScheduledJob',
      );
      const recorded = async (count: number) =>
        until(
          async () => (await call('GET', `/api/executions?jobId=${id}`)).body.length === count,
          `${count} recorded runs`,
        );

      // A run whose pod never started (recorded by the controller), then one whose pod reports.
      const first = fire(yearly.firedAt(0));
      await failPodBeforeStart(emu, NAMESPACE, first.pod.metadata.name);
      emu.syncJob(NAMESPACE, first.job.metadata.name);
      await recorded(1);
      expect(get('cronjobs', 'flaky')!.spec.suspend).toBe(false);
      const second = fire(yearly.firedAt(1));
      expect(await runPod(emu, NAMESPACE, second.pod.metadata.name)).toBe(1);
      emu.syncJob(NAMESPACE, second.job.metadata.name);
      await recorded(2);

      const reason =
        'suspended after 2 failed runs in a row (suspendAfterFailures: 2); switch the job on or run it to resume';
      await until(() => get('cronjobs', 'flaky')!.spec.suspend === true, 'the CronJob suspended');
      await until(() => condition('Suspended')?.status === 'True', 'the Suspended condition');
      expect(condition('Suspended')).toMatchObject({ reason: 'TooManyFailures', message: reason });
      expect(condition('Ready')).toMatchObject({ status: 'True' });
      // The user's spec says what the user wrote.
      expect(get('scheduledjobs', 'flaky')!.spec.suspend).toBe(false);
      await until(() => events('Suspended').length === 1, 'the Suspended event');
      expect(events('Suspended')[0]).toMatchObject({ type: 'Warning', message: reason });
      expect((await call('GET', `/api/jobs/${id}`)).body).toMatchObject({
        enabled: false,
        suspendedReason: reason,
      });
      await until(() => receiver.to('/hook').length === 1, 'the suspended alert');
      expect(receiver.to('/hook')[0]!.json).toMatchObject({ event: 'suspended', suspendedReason: reason });

      // Switched back on through the API.
      const toggled = await call('PATCH', `/api/jobs/${id}/toggle`, { enabled: true });
      expect(toggled.body).toMatchObject({ enabled: true, suspendedReason: null });
      await until(() => get('cronjobs', 'flaky')!.spec.suspend === false, 'the CronJob resumed');
      await until(() => condition('Suspended')?.status === 'False', 'the condition resumed');
      await until(() => events('Resumed').length === 1, 'the Resumed event');
      expect(get('scheduledjobs', 'flaky')!.spec.suspend).toBe(false);

      // Two more failures, both recorded by the controller: suspended again, from there.
      for (const minute of [2, 3]) {
        const { job, pod } = fire(yearly.firedAt(minute));
        await failPodBeforeStart(emu, NAMESPACE, pod.metadata.name);
        emu.syncJob(NAMESPACE, job.metadata.name);
        await recorded(minute + 1);
      }
      await until(() => get('cronjobs', 'flaky')!.spec.suspend === true, 'the CronJob suspended again');
      await until(() => condition('Suspended')?.status === 'True', 'the condition again');
      await until(() => receiver.to('/hook').length === 2, 'the second suspended alert');

      // Run by hand: resumed, and the run starts.
      expect((await call('POST', `/api/jobs/${id}/run`)).status).toBe(200);
      await until(() => get('cronjobs', 'flaky')!.spec.suspend === false, 'the CronJob resumed by the run');
      expect(
        emu.objects('jobs', NAMESPACE).some((job) => job.metadata.name.startsWith('flaky-manual-')),
      ).toBe(true);
      expect((await call('GET', `/api/jobs/${id}`)).body).toMatchObject({
        enabled: true,
        suspendedReason: null,
      });
      await until(() => condition('Suspended')?.status === 'False', 'the condition resumed by the run');
    } finally {
      await service?.stop();
      await controller?.stop();
    }
  }, 90_000);

  it('raises a running Job’s overrun once, across a controller restart', async () => {
    const clock = new ManualClock(new Date());
    // One clock for both: the controller queues the alert at its time, the service's worker sends what is due at its own.
    const service: TestService = await startTestService({ db, clock, alerting: { pollIntervalMs: 50 } });
    let controller = await runController(kc, db, { reportUrl: service.url, clock });
    try {
      const yearly = recentYearlyFire();
      await createScheduledJob(kc, 'flaky', {
        schedule: yearly.schedule,
        timeZone: 'UTC',
        command: 'sleep 600',
        onFailure: `${receiver.url}/failures`,
      });
      await createAlertConfig(kc, 'flaky-overrun', {
        jobRef: { name: 'flaky' },
        webhooks: [{ url: `${receiver.url}/hook`, events: ['overrun'] }],
        policy: { maxDurationSeconds: 120 },
      });
      await until(() => get('cronjobs', 'flaky'), 'the CronJob');
      const id = (await until(() => findJobForResource(db.pool, NAMESPACE, 'flaky'), 'the job row')).id;
      await until(
        async () =>
          (await service.request('GET', `/api/jobs/${id}/alerts`)).body.policy?.maxDurationSeconds === 120,
        'the policy from the AlertConfig',
      );
      const { job } = fire(yearly.firedAt(0));
      const uid = job.metadata.uid as string;
      await until(
        async () =>
          (await db.pool.query('SELECT 1 FROM cluster_runs WHERE run_uid = $1', [uid])).rowCount === 1,
        'the controller to see the run',
      );
      const startedAt = Date.parse(get('jobs', job.metadata.name)!.status.startTime);
      clock.set(new Date(startedAt + 60_000));
      controller.manager.resync();
      clock.set(new Date(startedAt + 121_000));
      controller.manager.resync();
      await until(() => receiver.to('/hook').length === 1, 'the overrun alert');
      await untilNoAlertInFlight(db.pool);
      expect(receiver.to('/hook')[0]!.json).toMatchObject({
        event: 'overrun',
        job: { id, name: 'flaky' },
        run: { maxDurationSeconds: 120 },
      });
      expect(receiver.to('/hook')[0]!.json.execution).toBeUndefined();

      // A new controller looks at the same running Job: nothing more is raised.
      await controller.stop();
      clock.advance(600_000);
      controller = await runController(kc, db, { reportUrl: service.url, clock });
      const runReconciles = async () => {
        const text = await controller.manager.metrics.registry.getSingleMetricAsString(
          'crondeck_controller_reconcile_total',
        );
        const line = text.split('\n').find((l) => l.includes('kind="run"') && l.includes('result="success"'));
        return Number(line?.split(' ').at(-1) ?? 0);
      };
      await until(async () => (await runReconciles()) > 0, 'the restarted controller to look at the run');
      const before = await runReconciles();
      controller.manager.resync();
      await until(async () => (await runReconciles()) > before, 'a resync of the run');
      const { rows } = await db.pool.query(`SELECT subject, state FROM alert_outbox WHERE event = 'overrun'`);
      expect(rows).toEqual([{ subject: `overrun:run:${uid}`, state: 'delivered' }]);
      expect(receiver.to('/hook')).toHaveLength(1);
    } finally {
      await controller.stop();
      await service.stop();
    }
  }, 60_000);
});
