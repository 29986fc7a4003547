import type { KubeConfig } from '@kubernetes/client-node';
import type { Database } from '../../src/store/database';
import { writeSchedulerState } from '../../src/store/scheduler';
import type { KubeEmulator } from '../support/kube/emulator';
import { createScheduledJob, NAMESPACE, runController, startCluster, until } from './cluster';
import { serverDatabase } from './slotCluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A pause, or a resume, as `POST /api/scheduler/pause` makes it in Kubernetes mode
 * (SchedulerControl): in one transaction, the scheduler's state written and every CronJob patched,
 * then the commit. The patches wake the controller before the commit; what it writes must not undo
 * them (a CronJob unsuspended during a pause could fire; one suspended again after a resume would
 * not). On a PostgreSQL server: its row locks are what the controller's read waits on.
 */
describe('a pause or a resume while the controller reconciles', () => {
  let emu: KubeEmulator;
  let kc: KubeConfig;
  let db: Database;
  let controller: Awaited<ReturnType<typeof runController>> | undefined;
  /** Every version of the CronJob `racing` stored, in order. */
  const versions: Obj[] = [];

  beforeAll(async () => {
    ({ emu, kc } = await startCluster());
    db = await serverDatabase();
    emu.store.subscribe((event) => {
      if (event.resourceKey.endsWith('cronjobs') && event.object.metadata.name === 'racing') {
        versions.push(event.object);
      }
    });
    controller = await runController(kc, db);
    await createScheduledJob(kc, 'racing', { schedule: '*/5 * * * *', command: 'true' });
    await until(() => cronJob()?.spec.suspend === false, 'the CronJob');
  }, 60_000);
  afterAll(async () => {
    await controller?.stop();
    await emu.stop();
    await db.close();
  });

  const cronJob = () => emu.objects('cronjobs', NAMESPACE).find((c) => c.metadata.name === 'racing');
  const ready = () =>
    (
      emu.objects('scheduledjobs', NAMESPACE).find((s) => s.metadata.name === 'racing')?.status
        ?.conditions as Obj[] | undefined
    )?.find((c) => c.type === 'Ready');

  /** The API's change: the state and the CronJob's patch in one transaction, committed a while after. */
  async function switchScheduler(paused: boolean): Promise<Obj[]> {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await writeSchedulerState(client, { paused, until: null });
      const patched = await controller!.manager.cluster.patchCronJob(NAMESPACE, 'racing', {
        spec: { suspend: paused },
      });
      const from = versions.findIndex(
        (v) => v.metadata.resourceVersion === patched.metadata!.resourceVersion,
      );
      // The controller sees the patch, and reconciles, before the commit.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await client.query('COMMIT');
      await until(() => ready()?.message?.includes('paused') === paused, 'the controller to see the change');
      await new Promise((resolve) => setTimeout(resolve, 300));
      return versions.slice(from);
    } finally {
      client.release();
    }
  }

  it('never unsuspends the CronJob a pause suspended, nor suspends again one a resume resumed', async () => {
    const afterPause = await switchScheduler(true);
    expect(afterPause.map((version) => version.spec.suspend)).not.toContain(false);
    expect(cronJob()?.spec.suspend).toBe(true);

    const afterResume = await switchScheduler(false);
    expect(afterResume.map((version) => version.spec.suspend)).not.toContain(true);
    expect(cronJob()?.spec.suspend).toBe(false);
    expect(
      controller!.logger.lines.filter((line) => JSON.stringify(line).includes('reconcile failed')),
    ).toEqual([]);
  });
});
