import { BatchV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { RunningController } from '../../src/controller/startController';
import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { NAMESPACE, runController, startCluster, until } from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const sj = { group: 'crondeck.dev', version: 'v1alpha1', namespace: NAMESPACE, plural: 'scheduledjobs' };

/**
 * Moving a plain CronJob to Crondeck: a ScheduledJob of the same name finds its CronJob's name taken
 * by an object the controller's watch never shows (it watches only the CronJobs it labelled).
 */
describe('a ScheduledJob whose CronJob name another CronJob holds', () => {
  let emu: KubeEmulator;
  let kc: KubeConfig;
  let db: Database;
  let controller: RunningController | undefined;

  const get = (resource: string, name: string): Obj | undefined =>
    emu.objects(resource, NAMESPACE).find((o) => o.metadata?.name === name);
  const ready = (name: string) =>
    get('scheduledjobs', name)?.status?.conditions?.find((c: Obj) => c.type === 'Ready');

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

  it('says so in its status and an Event, leaves that CronJob alone, and takes the name once it is free', async () => {
    const batch = kc.makeApiClient(BatchV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    await batch.createNamespacedCronJob({
      namespace: NAMESPACE,
      body: {
        metadata: { name: 'hello' },
        spec: {
          schedule: '*/5 * * * *',
          jobTemplate: {
            spec: {
              template: {
                spec: {
                  restartPolicy: 'Never',
                  containers: [{ name: 'c', image: 'busybox', command: ['true'] }],
                },
              },
            },
          },
        },
      },
    });
    controller = await runController(kc, db);
    await custom.createNamespacedCustomObject({
      ...sj,
      body: {
        apiVersion: 'crondeck.dev/v1alpha1',
        kind: 'ScheduledJob',
        metadata: { name: 'hello' },
        spec: { schedule: '0 3 * * *', command: 'echo hello' },
      },
    });

    await until(() => ready('hello')?.status === 'False', 'Ready=False');
    expect(ready('hello')).toMatchObject({
      reason: 'NameConflict',
      message:
        `a CronJob named hello already exists in namespace ${NAMESPACE} (not made by Crondeck); ` +
        'delete it, or rename this ScheduledJob',
    });
    const events = emu.objects('events', NAMESPACE).filter((e) => e.involvedObject?.name === 'hello');
    expect(events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'NameConflict' })]);
    const theirs = get('cronjobs', 'hello');
    expect(theirs?.spec.schedule).toBe('*/5 * * * *');
    expect(theirs?.metadata.ownerReferences).toBeUndefined();

    await batch.deleteNamespacedCronJob({ namespace: NAMESPACE, name: 'hello' });
    // Any later pass takes the name (the controller looks again each minute; an edit is sooner).
    const resource = (await custom.getNamespacedCustomObject({ ...sj, name: 'hello' })) as Obj;
    resource.metadata.annotations = { touched: 'yes' };
    await custom.replaceNamespacedCustomObject({ ...sj, name: 'hello', body: resource });
    const ours = await until(
      () => get('cronjobs', 'hello')?.metadata.ownerReferences && get('cronjobs', 'hello'),
      'its own CronJob',
    );
    expect(ours.spec.schedule).toBe('0 3 * * *');
    await until(() => ready('hello')?.status === 'True', 'Ready=True');
  });
});
