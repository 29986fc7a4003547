import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1CronJob,
  type V1Secret,
} from '@kubernetes/client-node';
import { reportTokenFor } from '../../src/domain/reportToken';
import type { RunningController } from '../../src/controller/startController';
import type { Database } from '../../src/store/database';
import { findJobForResource } from '../../src/store/resourceJobs';
import { writeSchedulerState } from '../../src/store/scheduler';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { chartMetricNames, missingFromScrape } from '../support/chartMetrics';
import { validateKubernetesObject } from '../support/openapi/kubernetesSchemas';
import { NAMESPACE, REPORT_SECRET, runController, startCluster, until } from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const sj = { group: 'crondeck.dev', version: 'v1alpha1', namespace: NAMESPACE, plural: 'scheduledjobs' };

describe('crondeck controller against the Kubernetes API emulator', () => {
  let emu: KubeEmulator;
  let kc: KubeConfig;
  let db: Database;
  let custom: CustomObjectsApi;
  let controller: (RunningController & { logger: { lines: Obj[] } }) | undefined;

  const get = (resource: string, name: string): Obj | undefined =>
    emu.objects(resource, NAMESPACE).find((o) => o.metadata?.name === name);
  const create = (name: string, spec: Obj) =>
    custom.createNamespacedCustomObject({
      ...sj,
      body: { apiVersion: 'crondeck.dev/v1alpha1', kind: 'ScheduledJob', metadata: { name }, spec },
    });
  const ready = (name: string) =>
    get('scheduledjobs', name)?.status?.conditions?.find((c: Obj) => c.type === 'Ready');

  beforeEach(async () => {
    ({ emu, kc } = await startCluster());
    custom = kc.makeApiClient(CustomObjectsApi);
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await controller?.stop();
    controller = undefined;
    await emu.stop();
    await db.close();
  });

  it('turns a ScheduledJob into a valid CronJob and a token key, with a job row and a Ready status', async () => {
    controller = await runController(kc, db);
    await create('backup', {
      schedule: '0 3 * * *',
      command: 'pg_dump',
      timeZone: 'Europe/Berlin',
      retry: { maxAttempts: 2 },
    });
    const cronJob = (await until(() => get('cronjobs', 'backup'), 'the CronJob')) as V1CronJob;
    expect(validateKubernetesObject(cronJob)).toEqual({ valid: true, errors: [] });
    expect(cronJob.spec).toMatchObject({
      schedule: '0 3 * * *',
      timeZone: 'Europe/Berlin',
      concurrencyPolicy: 'Forbid',
      suspend: false,
    });
    expect(cronJob.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'ScheduledJob',
      name: 'backup',
      controller: true,
    });

    const job = await until(() => findJobForResource(db.pool, NAMESPACE, 'backup'), 'the job row');
    expect(job).toMatchObject({
      name: 'backup',
      schedule: '0 3 * * *',
      timezone: 'Europe/Berlin',
      retry: { maxAttempts: 2 },
    });
    const secret = (await until(() => get('secrets', 'crondeck-report-tokens-0'), 'the Secret')) as V1Secret;
    expect(validateKubernetesObject(secret)).toEqual({ valid: true, errors: [] });
    expect(Buffer.from(secret.data![`job-${job.id}`]!, 'base64').toString()).toBe(
      reportTokenFor(REPORT_SECRET, job.id),
    );
    expect(cronJob.spec?.jobTemplate.spec?.template.spec?.containers[0]?.env).toContainEqual({
      name: 'CRONDECK_REPORT_TOKEN',
      valueFrom: { secretKeyRef: { name: 'crondeck-report-tokens-0', key: `job-${job.id}` } },
    });
    // The token reaches the pod from the Secret, never in plain text in the CronJob.
    expect(JSON.stringify(cronJob)).not.toContain(reportTokenFor(REPORT_SECRET, job.id));

    await until(() => ready('backup')?.status === 'True', 'Ready=True');
    const resource = get('scheduledjobs', 'backup')!;
    expect(resource.metadata.finalizers).toEqual(['crondeck.dev/cleanup']);
    expect(resource.status).toMatchObject({
      jobId: job.id,
      observedGeneration: 1,
      nextRun: expect.any(String),
    });
  });

  it('serves its health and the metrics the chart’s alerts and dashboard query', async () => {
    controller = await runController(kc, db);
    await create('scraped', { schedule: '0 3 * * *', command: 'true' });
    await until(() => ready('scraped')?.status === 'True', 'Ready=True');
    expect(await (await fetch(`${controller.healthUrl}/healthz`)).json()).toEqual({
      status: 'ok',
      leader: true,
    });
    const text = await (await fetch(`${controller.healthUrl}/metrics`)).text();
    expect(text).toMatch(/^crondeck_controller_reconcile_total\{kind="sj",result="success"\} [1-9]/m);
    expect(text).toMatch(/^crondeck_controller_leader 1$/m);
    const queried = chartMetricNames('crondeck_controller_');
    expect(queried.length).toBeGreaterThan(1);
    expect(missingFromScrape(queried, text)).toEqual([]);
  });

  it('stamps its last reconcile when in sync, with nothing to reconcile too, and not while reconciles fail', async () => {
    const scrape = async (name: string): Promise<number> => {
      const text = await (await fetch(`${controller!.healthUrl}/metrics`)).text();
      const line = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
      return line ? Number(line[1]) : NaN;
    };
    const lastReconcile = () => scrape('crondeck_controller_last_reconcile_timestamp_seconds');
    const failures = () => scrape('crondeck_controller_reconcile_total{kind="sj",result="error"}');
    const startedAt = Date.now() / 1000;
    controller = await runController(kc, db);
    // No ScheduledJob yet: an idle controller is in sync, not stuck.
    await until(async () => (await lastReconcile()) >= startedAt, 'a stamp with nothing to reconcile');

    // Every write of a job row refused: past its finalizer, the ScheduledJob's reconciles fail and
    // are retried (with backoff), and the resync finds it still to do.
    await db.pool.query('ALTER TABLE jobs ADD CONSTRAINT refuse_every_row CHECK (false) NOT VALID');
    await create('refused-for-now', { schedule: '0 3 * * *', command: 'true' });
    await until(async () => (await failures()) >= 1, 'a failed reconcile');
    const stamp = await lastReconcile();
    controller.manager.resync();
    await until(async () => (await failures()) >= 3, 'more failed reconciles');
    expect(await lastReconcile()).toBe(stamp);

    await db.pool.query('ALTER TABLE jobs DROP CONSTRAINT refuse_every_row');
    await until(() => ready('refused-for-now')?.status === 'True', 'Ready=True once writes pass');
    expect(await lastReconcile()).toBeGreaterThan(stamp);
  });

  it('repairs a hand-edited CronJob and follows an edit of the ScheduledJob, keeping the job id', async () => {
    controller = await runController(kc, db);
    await create('report', { schedule: '*/5 * * * *', command: 'make report' });
    await until(() => ready('report')?.status === 'True', 'Ready');
    const { id } = (await findJobForResource(db.pool, NAMESPACE, 'report'))!;

    const batch = controller.manager.cluster;
    await batch.patchCronJob(NAMESPACE, 'report', { spec: { schedule: '0 0 * * *', suspend: true } });
    await until(() => get('cronjobs', 'report')?.spec.schedule === '*/5 * * * *', 'the CronJob repaired');
    expect(get('cronjobs', 'report')?.spec.suspend).toBe(false);

    // As `kubectl patch sj report --type merge` would.
    await batch.patchScheduledJob(NAMESPACE, 'report', { spec: { schedule: '0 6 * * 1-5', suspend: true } });
    await until(() => get('cronjobs', 'report')?.spec.schedule === '0 6 * * 1-5', 'the CronJob updated');
    expect(get('cronjobs', 'report')?.spec.suspend).toBe(true);
    expect(await findJobForResource(db.pool, NAMESPACE, 'report')).toMatchObject({
      id,
      enabled: false,
      schedule: '0 6 * * 1-5',
    });
    await until(
      () => get('scheduledjobs', 'report')?.status?.observedGeneration === 2,
      'the new generation observed',
    );
  });

  it('resumes the CronJobs when a pause with until ends, and not before', async () => {
    controller = await runController(kc, db);
    await create('pausable', { schedule: '*/5 * * * *', command: 'true' });
    await until(() => ready('pausable')?.status === 'True', 'Ready');
    // As `POST /api/scheduler/pause {until}` does in Kubernetes mode: the state, then every CronJob.
    const pausedUntil = new Date(Date.now() + 2500);
    await writeSchedulerState(db.pool, { paused: true, until: pausedUntil });
    await controller.manager.cluster.patchCronJob(NAMESPACE, 'pausable', { spec: { suspend: true } });
    await until(() => ready('pausable')?.message?.includes('paused'), 'the pause seen');
    expect(get('cronjobs', 'pausable')?.spec.suspend).toBe(true);

    await until(() => get('cronjobs', 'pausable')?.spec.suspend === false, 'the CronJob resumed', 10_000);
    expect(Date.now()).toBeGreaterThanOrEqual(pausedUntil.getTime());
    await until(() => ready('pausable')?.message === 'the CronJob is in place', 'Ready without the pause');
  });

  it('refuses a spec the CRD schema cannot judge with Ready=False naming the field, an Event, and no CronJob', async () => {
    controller = await runController(kc, db);
    await create('never', { schedule: '0 0 30 2 *', command: 'true' });
    await until(() => ready('never')?.status === 'False', 'Ready=False');
    expect(ready('never')).toMatchObject({
      reason: 'InvalidSpec',
      message: expect.stringMatching(/^spec\.schedule: /),
    });
    expect(get('cronjobs', 'never')).toBeUndefined();
    const events = emu.objects('events', NAMESPACE).filter((e) => e.involvedObject?.name === 'never');
    expect(events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'InvalidSpec' })]);
    expect(await findJobForResource(db.pool, NAMESPACE, 'never')).toBeNull();
  });

  it('removes the job’s rows and token through its finalizer when the ScheduledJob is deleted, and the CronJob goes with it', async () => {
    controller = await runController(kc, db);
    await create('gone', { schedule: '@hourly', command: 'true' });
    await create('stays', { schedule: '@hourly', command: 'true' });
    await until(() => ready('gone')?.status === 'True' && ready('stays')?.status === 'True', 'Ready');
    const gone = (await findJobForResource(db.pool, NAMESPACE, 'gone'))!;
    const stays = (await findJobForResource(db.pool, NAMESPACE, 'stays'))!;
    const tokens = () => Object.keys(get('secrets', 'crondeck-report-tokens-0')?.data ?? {}).sort();
    expect(tokens()).toEqual([`job-${gone.id}`, `job-${stays.id}`].sort());

    await custom.deleteNamespacedCustomObject({ ...sj, name: 'gone' });
    await until(() => !get('scheduledjobs', 'gone'), 'the ScheduledJob gone');
    expect(await findJobForResource(db.pool, NAMESPACE, 'gone')).toBeNull();
    // The key was removed before the finalizer let the resource go.
    expect(tokens()).toEqual([`job-${stays.id}`]);
    await until(() => !get('cronjobs', 'gone'), 'the owned CronJob collected');
  });

  it('lets many deleted ScheduledJobs go together, each once its key is removed', async () => {
    controller = await runController(kc, db);
    const names = ['del-a', 'del-b', 'del-c', 'del-d', 'del-e', 'del-f'];
    for (const name of names) await create(name, { schedule: '@hourly', command: 'true' });
    await until(() => names.every((name) => ready(name)?.status === 'True'), 'all Ready');
    const keys = () => Object.keys(get('secrets', 'crondeck-report-tokens-0')?.data ?? {});
    expect(keys()).toHaveLength(names.length);

    // More deletions at once than the controller has workers: none of them holds a worker while the
    // batch removing the keys gathers.
    await Promise.all(names.map((name) => custom.deleteNamespacedCustomObject({ ...sj, name })));
    await until(() => names.every((name) => !get('scheduledjobs', name)), 'every ScheduledJob gone');
    expect(keys()).toEqual([]);
    for (const name of names) expect(await findJobForResource(db.pool, NAMESPACE, name)).toBeNull();
  });

  it('puts back a token key or a token Secret deleted by hand', async () => {
    controller = await runController(kc, db);
    await create('kept', { schedule: '@hourly', command: 'true' });
    await until(() => ready('kept')?.status === 'True', 'Ready');
    const { id } = (await findJobForResource(db.pool, NAMESPACE, 'kept'))!;
    const key = `job-${id}`;
    const cluster = controller.manager.cluster;

    await cluster.patchSecret(NAMESPACE, 'crondeck-report-tokens-0', { data: { [key]: null } });
    await until(() => get('secrets', 'crondeck-report-tokens-0')?.data?.[key], 'the key put back');

    await cluster.kubeConfig
      .makeApiClient(CoreV1Api)
      .deleteNamespacedSecret({ namespace: NAMESPACE, name: 'crondeck-report-tokens-0' });
    await until(() => get('secrets', 'crondeck-report-tokens-0')?.data?.[key], 'the Secret put back');
    expect(Buffer.from(get('secrets', 'crondeck-report-tokens-0')!.data[key], 'base64').toString()).toBe(
      reportTokenFor(REPORT_SECRET, id),
    );
  });

  it('costs three writes per new ScheduledJob (finalizer, CronJob, status), the token keys written in batches', async () => {
    controller = await runController(kc, db);
    emu.resetRequestCounts();
    const names = Array.from({ length: 40 }, (_, i) => `batch-${i}`);
    await Promise.all(names.map((name) => create(name, { schedule: '@daily', command: `echo ${name}` })));
    await until(() => names.every((name) => ready(name)?.status === 'True'), 'all Ready', 60_000);
    const counts = emu.requestCounts();
    const writesTo = (resource: string) =>
      ['create', 'update', 'patch', 'delete'].reduce(
        (sum, verb) => sum + (counts[`${verb} ${resource}`] ?? 0),
        0,
      );
    expect(writesTo('scheduledjobs')).toBe(names.length + names.length); // kubectl's creates + finalizers
    expect(writesTo('scheduledjobs/status')).toBe(names.length);
    expect(writesTo('cronjobs')).toBe(names.length);
    expect(writesTo('events')).toBe(0);
    expect(writesTo('secrets')).toBeGreaterThanOrEqual(1);
    expect(writesTo('secrets')).toBeLessThanOrEqual(names.length / 5);
    const secret = get('secrets', 'crondeck-report-tokens-0')!;
    expect(Object.keys(secret.data)).toHaveLength(names.length);
  }, 90_000);

  it('writes nothing over a resync once converged, and a restart creates no duplicates', async () => {
    controller = await runController(kc, db);
    for (const name of ['a', 'b']) await create(name, { schedule: '@daily', command: `echo ${name}` });
    // Variables with empty values, which the API server stores without their `value`.
    await create('c', {
      schedule: '@daily',
      command: 'echo c',
      env: [{ name: 'UNSET' }, { name: 'BLANK', value: '' }],
    });
    await until(() => ['a', 'b', 'c'].every((name) => ready(name)?.status === 'True'), 'all Ready');
    const writes = () =>
      Object.entries(emu.requestCounts())
        .filter(([key]) =>
          /^(create|update|patch|delete) (?!scheduledjobs$|customresourcedefinitions|namespaces)/.test(key),
        )
        .reduce((sum, [, n]) => sum + n, 0);
    // Converged means no write for a while: the queue may still hold events of the last writes.
    const settled = async () => {
      let last = -1;
      while (writes() !== last) {
        last = writes();
        await new Promise((resolve) => setTimeout(resolve, 700));
      }
    };
    await settled();
    // Per new object: the finalizer, the CronJob and the status; the token keys in one batch or two.
    expect(writes()).toBeLessThanOrEqual(3 * 3 + 2);
    emu.resetRequestCounts();
    controller.manager.resync();
    await settled();
    expect(writes()).toBe(0);

    await controller.stop();
    const rowsBefore = (await db.pool.query('SELECT id FROM jobs ORDER BY id')).rows;
    controller = await runController(kc, db);
    await controller.manager.synced();
    controller.manager.resync();
    await settled();
    expect(emu.objects('cronjobs', NAMESPACE)).toHaveLength(3);
    expect(Object.keys(get('secrets', 'crondeck-report-tokens-0')!.data)).toHaveLength(3);
    expect((await db.pool.query('SELECT id FROM jobs ORDER BY id')).rows).toEqual(rowsBefore);
    expect(writes()).toBe(0);
  });

  it('lets one of two controllers act, and the other take over when the leader stops', async () => {
    const first = await runController(kc, db, { identity: 'pod-a', leaderElection: true });
    const second = await runController(kc, db, { identity: 'pod-b', leaderElection: true });
    try {
      await until(() => first.manager.isActing || second.manager.isActing, 'a leader');
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect([first.manager.isActing, second.manager.isActing].filter(Boolean)).toHaveLength(1);
      const [leader, follower] = first.manager.isActing ? [first, second] : [second, first];
      const lease = emu.objects('leases', NAMESPACE).find((l) => l.metadata.name === 'crondeck-controller');
      expect(lease?.spec.holderIdentity).toBe(leader === first ? 'pod-a' : 'pod-b');
      expect(lease?.spec.renewTime).toMatch(/\.\d{6}Z$/);

      await leader.stop();
      await until(() => follower.manager.isActing, 'the follower to take over');
      await create('after-failover', { schedule: '@daily', command: 'true' });
      await until(() => get('cronjobs', 'after-failover'), 'the new leader to act');
    } finally {
      await first.stop();
      await second.stop();
    }
  });
});
