import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { createScheduledJob, NAMESPACE, runController, startCluster, until } from './cluster';

/**
 * A cluster whose CronJobWatch CRD is not installed yet (a release's CRDs applied by hand, or
 * owned by another release that has not upgraded): the controller's watch of CronJobWatches fails
 * and is retried, and everything else goes on as before: ScheduledJobs still get their CronJobs.
 */
describe('the controller without the CronJobWatch CRD', () => {
  let emu: KubeEmulator;
  let db: Database;

  afterEach(async () => {
    await emu?.stop();
    await db?.close();
  });

  it('reconciles ScheduledJobs all the same, and says why it cannot watch CronJobs', async () => {
    const cluster = await startCluster();
    emu = cluster.emu;
    db = await createTestDatabase();
    const gone = await fetch(
      `${emu.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/cronjobwatches.crondeck.dev`,
      { method: 'DELETE', headers: { authorization: `Bearer ${emu.adminToken}` } },
    );
    expect(gone.status).toBe(200);
    await until(
      async () =>
        (
          await fetch(`${emu.url}/apis/crondeck.dev/v1alpha1/namespaces/${NAMESPACE}/cronjobwatches`, {
            headers: { authorization: `Bearer ${emu.adminToken}` },
          })
        ).status === 404,
      'the CRD to go',
    );
    const controller = await runController(cluster.kc, db);
    try {
      await createScheduledJob(cluster.kc, 'still-works', { schedule: '0 3 * * *', command: 'true' });
      await until(
        () => emu.objects('cronjobs', NAMESPACE).some((c) => c.metadata.name === 'still-works'),
        'the ScheduledJob’s CronJob',
      );
      await until(
        () =>
          controller.logger.lines.some(
            (line) => line.msg === 'watch failed; starting it again' && line.resource === 'cronjobwatches',
          ),
        'the failed watch to be logged',
      );
    } finally {
      await controller.stop();
    }
  }, 60_000);
});
