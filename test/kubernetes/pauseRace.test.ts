import type { KubeConfig } from '@kubernetes/client-node';
import type { Database } from '../../src/store/database';
import { writeSchedulerState } from '../../src/store/scheduler';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { createScheduledJob, NAMESPACE, runController, startCluster, until } from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A pause lands in the middle of a reconcile: the controller has read the scheduler state (not
 * paused) when `POST /api/scheduler/pause` commits the pause and suspends the CronJob, and the
 * controller's cache has the suspended CronJob by the time it compares. It must not write back the
 * CronJob it computed from the state it read before: that would unsuspend a CronJob during a pause
 * (on a cluster, until some later pass: a fire could happen meanwhile).
 */
describe('a pause that lands while the controller reconciles', () => {
  let emu: KubeEmulator;
  let kc: KubeConfig;
  let db: Database;
  let controller: Awaited<ReturnType<typeof runController>> | undefined;

  beforeAll(async () => {
    ({ emu, kc } = await startCluster());
    db = await createTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await controller?.stop();
    await emu.stop();
    await db.close();
  });

  it('never unsuspends the CronJob the pause suspended', async () => {
    // The controller's database: its next read of the scheduler state, once armed, is followed by
    // the API's pause (the state committed, the CronJob suspended), before the controller goes on.
    let pauseAfterNextRead: (() => Promise<void>) | null = null;
    const pool = new Proxy(db.pool, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
        return async (...args: unknown[]) => {
          const result = await (target.query as (...a: unknown[]) => Promise<unknown>)(...args);
          const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
          if (pauseAfterNextRead && text?.includes('FROM scheduler_state')) {
            const pause = pauseAfterNextRead;
            pauseAfterNextRead = null;
            await pause();
          }
          return result;
        };
      },
    });
    controller = await runController(kc, { ...db, pool });
    const cronJob = () => emu.objects('cronjobs', NAMESPACE).find((c) => c.metadata.name === 'racing');
    await createScheduledJob(kc, 'racing', { schedule: '*/5 * * * *', command: 'true' });
    await until(() => cronJob()?.spec.suspend === false, 'the CronJob');

    // Every version of the CronJob stored from the pause on.
    const versions: Obj[] = [];
    let pausedAt = Infinity;
    emu.store.subscribe((event) => {
      if (event.resourceKey.endsWith('cronjobs') && event.object.metadata.name === 'racing') {
        if (Number(event.object.metadata.resourceVersion) >= pausedAt) versions.push(event.object);
      }
    });
    pauseAfterNextRead = async () => {
      await writeSchedulerState(db.pool, { paused: true, until: null });
      const suspended = await controller!.manager.cluster.patchCronJob(NAMESPACE, 'racing', {
        spec: { suspend: true },
      });
      pausedAt = Number(suspended.metadata!.resourceVersion);
      versions.push(suspended as Obj);
      // Time for the watch to bring the suspended CronJob into the controller's cache.
      await new Promise((resolve) => setTimeout(resolve, 300));
    };
    // Something brings the controller back to the ScheduledJob (a label added by hand).
    await controller.manager.cluster.patchScheduledJob(NAMESPACE, 'racing', {
      metadata: { labels: { touched: 'yes' } },
    });
    await until(() => pauseAfterNextRead === null, 'the reconcile the pause lands in');
    const ready = () =>
      (
        emu.objects('scheduledjobs', NAMESPACE).find((s) => s.metadata.name === 'racing')?.status
          ?.conditions as Obj[] | undefined
      )?.find((c) => c.type === 'Ready');
    await until(() => ready()?.message?.includes('paused'), 'the controller to see the pause');

    expect(cronJob()?.spec.suspend).toBe(true);
    expect(versions.map((version) => version.spec.suspend)).not.toContain(false);
    // The refused write is routine: the next pass came with the watch, nothing failed.
    expect(
      controller.logger.lines.filter((line) => JSON.stringify(line).includes('reconcile failed')),
    ).toEqual([]);
  });
});
