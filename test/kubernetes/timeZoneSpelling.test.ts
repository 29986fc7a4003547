import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { RunningController } from '../../src/controller/startController';
import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { NAMESPACE, runController, startCluster, until } from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Intl takes a time zone's name in any case, and so does the job's schema; the API server reads a
 * CronJob's timeZone as a file of the time zone database, and refuses `europe/berlin`.
 */
describe('a time zone written in another case', () => {
  let emu: KubeEmulator;
  let kc: KubeConfig;
  let db: Database;
  let controller: RunningController | undefined;

  beforeEach(async () => {
    ({ emu, kc } = await startCluster());
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await controller?.stop();
    await emu.stop();
    await db.close();
  });

  it('reaches the CronJob spelled as the database spells it, and the job is Ready', async () => {
    controller = await runController(kc, db);
    await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'crondeck.dev',
      version: 'v1alpha1',
      namespace: NAMESPACE,
      plural: 'scheduledjobs',
      body: {
        apiVersion: 'crondeck.dev/v1alpha1',
        kind: 'ScheduledJob',
        metadata: { name: 'berlin' },
        spec: { schedule: '0 3 * * *', command: 'true', timeZone: 'europe/berlin' },
      },
    });
    const ready = () =>
      emu
        .objects('scheduledjobs', NAMESPACE)
        .find((o: Obj) => o.metadata.name === 'berlin')
        ?.status?.conditions?.find((c: Obj) => c.type === 'Ready');
    await until(() => ready()?.status, 'a Ready condition');
    expect(ready()).toMatchObject({ status: 'True', reason: 'Reconciled' });
    const cronJob = emu.objects('cronjobs', NAMESPACE).find((o: Obj) => o.metadata.name === 'berlin');
    expect(cronJob?.spec.timeZone).toBe('Europe/Berlin');
  });
});
