import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { RunningController } from '../../src/controller/startController';
import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { NAMESPACE, runController, startCluster, until } from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const sj = { group: 'crondeck.dev', version: 'v1alpha1', namespace: NAMESPACE, plural: 'scheduledjobs' };

/**
 * The controller makes a ScheduledJob's pods with its own permissions: whoever may create a
 * ScheduledJob must not get, through its env, the Secrets Crondeck runs on (the report tokens of
 * the other jobs, the database's URL, the report secret, the API token).
 */
describe('a ScheduledJob may not hand Crondeck’s own Secrets to its pods', () => {
  let emu: KubeEmulator;
  let kc: KubeConfig;
  let db: Database;
  let custom: CustomObjectsApi;
  let controller: RunningController | undefined;

  const get = (resource: string, name: string): Obj | undefined =>
    emu.objects(resource, NAMESPACE).find((o) => o.metadata?.name === name);
  const create = (name: string, secretName: string) =>
    custom.createNamespacedCustomObject({
      ...sj,
      body: {
        apiVersion: 'crondeck.dev/v1alpha1',
        kind: 'ScheduledJob',
        metadata: { name },
        spec: {
          schedule: '0 3 * * *',
          command: 'echo "$LOOT"',
          env: [{ name: 'LOOT', valueFrom: { secretKeyRef: { name: secretName, key: 'value' } } }],
        },
      },
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

  it('the API server refuses one that names a report-token Secret, by the CRD’s rule', async () => {
    const refused = await create('thief', 'crondeck-report-tokens-0').then(
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
    await create('thief', 'crondeck-api-token');
    await create('honest', 'app-credentials');

    await until(() => ready('thief')?.status === 'False', 'Ready=False');
    expect(ready('thief')).toMatchObject({
      reason: 'InvalidSpec',
      message:
        'spec.env[0].valueFrom.secretKeyRef: the Secret "crondeck-api-token" holds Crondeck\'s own ' +
        'credentials; a job may not read it',
    });
    // Any other Secret of the namespace is the job's to name.
    const honest = await until(() => get('cronjobs', 'honest'), 'the other job’s CronJob');
    const container = honest.spec.jobTemplate.spec.template.spec.containers[0];
    expect(container.env).toContainEqual({
      name: 'LOOT',
      valueFrom: { secretKeyRef: { name: 'app-credentials', key: 'value' } },
    });
    expect(get('cronjobs', 'thief')).toBeUndefined();
  });
});
