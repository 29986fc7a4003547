import { CoreV1Api } from '@kubernetes/client-node';
import type { Database } from '../../src/store/database';
import { findWatchedJob } from '../../src/store/watchedCronJobJobs';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator, OpenWatch } from '../support/kube/emulator';
import { runPod } from '../support/kube/kubelet';
import { NAMESPACE, runController, startCluster, until } from './cluster';
import {
  createCronJob,
  createCronJobWatch,
  deleteCronJobWatch,
  plainCronJob,
} from './watchedCronJobsSupport';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A namespace with CronJobs, Jobs and pods of its own, and no CronJobWatch. */
const ELSEWHERE = 'elsewhere';
const WATCHED_KINDS = ['cronjobs', 'jobs', 'pods'];

/**
 * Issue 40, "watch what is needed": a controller that watches every namespace opens watches of
 * CronJobs, Jobs and pods only in the namespaces that hold a CronJobWatch, from the first one there
 * to the last; the rest of the cluster's Jobs are never in its caches. (The controller's own
 * watches of what Crondeck made select `managed-by=crondeck`; the watched CronJobs' select what
 * Crondeck did not make, `managed-by!=crondeck`.)
 */
describe('the namespaces a controller watches for CronJobWatches', () => {
  let emu: KubeEmulator;
  let kc: Parameters<typeof runController>[0];
  let db: Database;
  let controller: Awaited<ReturnType<typeof runController>>;
  const fireTime = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000);
  const yearly = `${fireTime.getUTCMinutes()} ${fireTime.getUTCHours()} ${fireTime.getUTCDate()} ${fireTime.getUTCMonth() + 1} *`;
  const labels = { team: 'data' };

  beforeAll(async () => {
    ({ emu, kc } = await startCluster());
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ELSEWHERE } } });
    db = await createTestDatabase();
    for (const namespace of [NAMESPACE, ELSEWHERE]) {
      await createCronJob(
        kc,
        plainCronJob('dump', { namespace, labels, schedule: yearly, spec: { timeZone: 'UTC' } }),
      );
    }
    // A run elsewhere, there before the controller: never recorded, never cached.
    await runFired(ELSEWHERE, 'dump');
    controller = await runController(kc, db, { watchNamespace: null });
    await controller.manager.synced();
  }, 60_000);
  afterAll(async () => {
    await controller.stop();
    await emu.stop();
    await db.close();
  });

  /** The watches of plain CronJobs, Jobs and pods open now (not those of what Crondeck made). */
  const watchedCronJobWatches = (): OpenWatch[] =>
    emu
      .watchesOpen()
      .filter((open) => WATCHED_KINDS.includes(open.resource) && open.labelSelector.includes('!='));
  const namespacesWatched = () =>
    [...new Set(watchedCronJobWatches().map((open) => open.namespace ?? '*'))].sort();
  const watchedBy = async (namespace: string) =>
    (await findWatchedJob(db.pool, namespace, 'dump'))?.cronJob?.watchedBy;
  const executionsOf = async (namespace: string) => {
    const job = await findWatchedJob(db.pool, namespace, 'dump');
    if (!job) return [];
    const { rows } = await db.pool.query<Obj>('SELECT status, exit_code FROM executions WHERE job_id = $1', [
      job.id,
    ]);
    return rows;
  };

  /** The CronJob controller fires the CronJob; its pod runs to the end. */
  async function runFired(namespace: string, cronJob: string, at = fireTime): Promise<void> {
    const job = emu.fireCronJob(namespace, cronJob, at);
    emu.syncJob(namespace, job.metadata.name);
    const pod = emu
      .objects('pods', namespace)
      .find((p) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid)!;
    await runPod(emu, namespace, pod.metadata.name);
    emu.syncJob(namespace, job.metadata.name);
  }

  it('watches no CronJob, Job or pod while no CronJobWatch exists', () => {
    expect(emu.watchesOpen().some((open) => open.resource === 'cronjobwatches')).toBe(true);
    expect(watchedCronJobWatches()).toEqual([]);
  });

  it('watches the namespace of a CronJobWatch, and no other', async () => {
    await createCronJobWatch(kc, 'data-team', { selector: { matchLabels: labels } });
    // The three watches open one by one: wait for all of them.
    await until(() => watchedCronJobWatches().length === WATCHED_KINDS.length, 'the namespace’s watches');
    expect(
      watchedCronJobWatches()
        .map((open) => open.resource)
        .sort(),
    ).toEqual(WATCHED_KINDS);
    expect(namespacesWatched()).toEqual([NAMESPACE]);

    await until(async () => (await watchedBy(NAMESPACE)) === 'data-team', 'the watched job');
    await runFired(NAMESPACE, 'dump');
    await until(async () => (await executionsOf(NAMESPACE)).length === 1, 'the run recorded');
    expect(await executionsOf(NAMESPACE)).toEqual([{ status: 'success', exit_code: 0 }]);
    // The same CronJob elsewhere, with a run, is never a job.
    expect(await findWatchedJob(db.pool, ELSEWHERE, 'dump')).toBeNull();
  }, 30_000);

  it('closes the namespace’s watches with its last CronJobWatch, keeping the job', async () => {
    await deleteCronJobWatch(kc, 'data-team');
    await until(() => watchedCronJobWatches().length === 0, 'the namespace’s watches closed');
    await until(async () => (await watchedBy(NAMESPACE)) === null, 'the watching stopped');
    expect(await executionsOf(NAMESPACE)).toHaveLength(1);
  }, 30_000);

  it('opens them again with a new CronJobWatch, and records the runs made meanwhile', async () => {
    // A run while nothing watched the namespace: recorded once the selection comes back.
    const fireAgain = new Date(fireTime.getTime() - 365 * 24 * 3_600_000);
    await runFired(NAMESPACE, 'dump', fireAgain);

    await createCronJobWatch(kc, 'data-team-again', { selector: { matchLabels: labels } });
    await until(async () => (await watchedBy(NAMESPACE)) === 'data-team-again', 'watched again');
    await until(() => watchedCronJobWatches().length === WATCHED_KINDS.length, 'the watches again');
    expect(namespacesWatched()).toEqual([NAMESPACE]);
    await until(async () => (await executionsOf(NAMESPACE)).length === 2, 'the run made meanwhile');
  }, 30_000);

  it('stops watching, once leading again, where a CronJobWatch was deleted while no controller led', async () => {
    await controller.stop();
    await deleteCronJobWatch(kc, 'data-team-again');
    // The database still says the CronJob is watched; no CronJobWatch is left to say where to look.
    expect(await watchedBy(NAMESPACE)).toBe('data-team-again');
    controller = await runController(kc, db, { watchNamespace: null });
    await until(async () => (await watchedBy(NAMESPACE)) === null, 'the watching stopped');
    expect(watchedCronJobWatches()).toEqual([]);
  }, 30_000);
});
