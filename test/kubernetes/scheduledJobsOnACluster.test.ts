import { BatchV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { RunningController } from '../../src/controller/startController';
import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { NAMESPACE, createScheduledJob, runController, startCluster, until } from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const sj = { group: 'crondeck.dev', version: 'v1alpha1', namespace: NAMESPACE, plural: 'scheduledjobs' };

/**
 * What a real cluster holds against a ScheduledJob that the job's own rules accept: the Secrets
 * Crondeck runs on, a CronJob name another object holds, a time zone the API server reads case by
 * case.
 */
describe('ScheduledJobs on a cluster', () => {
  let emu: KubeEmulator;
  let kc: KubeConfig;
  let db: Database;
  let controller: RunningController | undefined;

  const get = (resource: string, name: string): Obj | undefined =>
    emu.objects(resource, NAMESPACE).find((o) => o.metadata?.name === name);
  const ready = (name: string) =>
    get('scheduledjobs', name)?.status?.conditions?.find((c: Obj) => c.type === 'Ready');
  /** A job whose command gets `LOOT` from the Secret `secretName`. */
  const readingSecret = (secretName: string) => ({
    schedule: '0 3 * * *',
    command: 'echo "$LOOT"',
    env: [{ name: 'LOOT', valueFrom: { secretKeyRef: { name: secretName, key: 'value' } } }],
  });

  beforeEach(async () => {
    ({ emu, kc } = await startCluster());
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await controller?.stop();
    controller = undefined;
    await emu.stop();
    await db.close();
  });

  // The controller makes a ScheduledJob's pods with its own permissions: whoever may create one
  // must not get, through its env, the report tokens of the other jobs, the database's URL, the
  // report secret or the API token.
  describe('may not hand Crondeck’s own Secrets to its pods', () => {
    it('the API server refuses one that names a report-token Secret, by the CRD’s rule', async () => {
      const refused = await createScheduledJob(kc, 'thief', readingSecret('crondeck-report-tokens-0')).then(
        () => null,
        (error: { code?: number; body?: string }) => error,
      );
      expect(refused?.code).toBe(422);
      expect(JSON.parse(refused?.body ?? '{}').message).toContain(
        'spec.env[0].valueFrom.secretKeyRef: Invalid value: "object": Secrets named crondeck-report-tokens-* ' +
          'hold the report tokens of other jobs; a job may not read them',
      );
      expect(get('scheduledjobs', 'thief')).toBeUndefined();
    });

    it('the controller refuses one that names a Secret Crondeck runs on, and makes no CronJob', async () => {
      controller = await runController(kc, db, { ownSecrets: ['crondeck', 'crondeck-api-token'] });
      await createScheduledJob(kc, 'thief', readingSecret('crondeck-api-token'));
      await createScheduledJob(kc, 'honest', readingSecret('app-credentials'));

      await until(() => ready('thief')?.status === 'False', 'Ready=False');
      expect(ready('thief')).toMatchObject({
        reason: 'InvalidSpec',
        message:
          'spec.env[0].valueFrom.secretKeyRef: the Secret "crondeck-api-token" holds Crondeck\'s own ' +
          'credentials; a job may not read it',
      });
      // Any other Secret of the namespace is the job's to name.
      const honest = await until(() => get('cronjobs', 'honest'), 'the other job’s CronJob');
      expect(honest.spec.jobTemplate.spec.template.spec.containers[0].env).toContainEqual({
        name: 'LOOT',
        valueFrom: { secretKeyRef: { name: 'app-credentials', key: 'value' } },
      });
      expect(get('cronjobs', 'thief')).toBeUndefined();
    });
  });

  // Moving a plain CronJob to Crondeck: the controller's watch sees only the CronJobs it labelled,
  // so the one that holds the name never comes through it.
  it('says so when another CronJob holds its CronJob’s name, leaves it alone, and takes the name once free', async () => {
    const batch = kc.makeApiClient(BatchV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const container = { name: 'c', image: 'busybox', command: ['true'] };
    await batch.createNamespacedCronJob({
      namespace: NAMESPACE,
      body: {
        metadata: { name: 'hello' },
        spec: {
          schedule: '*/5 * * * *',
          jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } } },
        },
      },
    });
    controller = await runController(kc, db);
    await createScheduledJob(kc, 'hello', { schedule: '0 3 * * *', command: 'echo hello' });

    await until(() => ready('hello')?.status === 'False', 'Ready=False');
    expect(ready('hello')).toMatchObject({
      reason: 'NameConflict',
      message:
        `a CronJob named hello already exists in namespace ${NAMESPACE} (not made by Crondeck); ` +
        'delete it, or rename this ScheduledJob',
    });
    const events = emu.objects('events', NAMESPACE).filter((e) => e.involvedObject?.name === 'hello');
    expect(events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'NameConflict' })]);
    expect(get('cronjobs', 'hello')?.spec.schedule).toBe('*/5 * * * *');
    expect(get('cronjobs', 'hello')?.metadata.ownerReferences).toBeUndefined();

    await batch.deleteNamespacedCronJob({ namespace: NAMESPACE, name: 'hello' });
    // Any later pass takes the name (the controller looks again each minute; an edit is sooner).
    const resource = (await custom.getNamespacedCustomObject({ ...sj, name: 'hello' })) as Obj;
    resource.metadata.annotations = { touched: 'yes' };
    await custom.replaceNamespacedCustomObject({ ...sj, name: 'hello', body: resource });
    const ours = await until(
      () => (get('cronjobs', 'hello')?.metadata.ownerReferences ? get('cronjobs', 'hello') : undefined),
      'its own CronJob',
    );
    expect(ours.spec.schedule).toBe('0 3 * * *');
    await until(() => ready('hello')?.status === 'True', 'Ready=True');
  });

  // Intl takes a time zone's name in any case, and so does the job's schema; the API server reads a
  // CronJob's timeZone as a file of the time zone database, and refuses `europe/berlin`.
  it('writes a time zone given in another case as the time zone database spells it', async () => {
    controller = await runController(kc, db);
    await createScheduledJob(kc, 'berlin', {
      schedule: '0 3 * * *',
      command: 'true',
      timeZone: 'europe/berlin',
    });
    await until(() => ready('berlin')?.status, 'a Ready condition');
    expect(ready('berlin')).toMatchObject({ status: 'True', reason: 'Reconciled' });
    expect(get('cronjobs', 'berlin')?.spec.timeZone).toBe('Europe/Berlin');
  });
});
