import { ApiException, BatchV1Api } from '@kubernetes/client-node';
import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { startTestService, type TestService } from '../support/service';
import { createScheduledJob, NAMESPACE, runController, startCluster, until } from './cluster';
import {
  createCronJob,
  createCronJobWatch,
  deleteCronJobWatch,
  plainCronJob,
} from './watchedCronJobsSupport';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Issue 40: a CronJobWatch selects plain CronJobs of its namespace (by label and by name), and each
 * becomes a job of the API with `source: cronjob`, mirrored from the CronJob and read-only there.
 * A ScheduledJob's own CronJob is never watched, and a selection removed stops the watching while
 * the job and its history stay.
 */
describe('CronJobWatch: the CronJobs a cluster already has, as jobs', () => {
  let emu: KubeEmulator;
  let kc: Parameters<typeof runController>[0];
  let db: Database;
  let service: TestService;
  let stopController: () => Promise<void>;

  beforeAll(async () => {
    ({ emu, kc } = await startCluster());
    db = await createTestDatabase();
    service = await startTestService({ db });
    const controller = await runController(kc, db);
    stopController = () => controller.stop();
  }, 60_000);
  afterAll(async () => {
    await stopController();
    await service.stop();
    await emu.stop();
    await db.close();
  });

  const jobs = async () => (await service.request('GET', '/api/jobs')).body as Obj[];
  const jobNamed = async (name: string) => (await jobs()).find((job) => job.name === name);
  const watchStatus = (name: string) =>
    emu.objects('cronjobwatches', NAMESPACE).find((watch) => watch.metadata.name === name)?.status as
      Obj | undefined;

  it('refuses a CronJobWatch that selects nothing, through the CRD schema', async () => {
    const refused = await createCronJobWatch(kc, 'nothing', { webhooks: [] }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApiException);
    expect((refused as ApiException<string>).code).toBe(422);
    expect(String((refused as ApiException<string>).body)).toContain('set selector, names, or both');
  });

  it('watches what it selects by label and by name, and nothing else', async () => {
    await createCronJob(kc, plainCronJob('db-dump', { labels: { team: 'data' } }));
    await createCronJob(kc, plainCronJob('cert-rotate', { schedule: '*/5 * * * *' }));
    await createCronJob(kc, plainCronJob('unselected', { labels: { team: 'web' } }));
    // A ScheduledJob's own CronJob, named by the selection too: Crondeck records it already.
    await createScheduledJob(kc, 'own', { schedule: '0 4 * * *', command: 'true' });
    await until(
      () => emu.objects('cronjobs', NAMESPACE).some((c) => c.metadata.name === 'own'),
      'own CronJob',
    );
    await createCronJobWatch(kc, 'data-team', {
      selector: { matchLabels: { team: 'data' } },
      names: ['cert-rotate', 'own'],
    });

    const dump = await until(() => jobNamed(`cronjob.${NAMESPACE}.db-dump`), 'the db-dump job');
    expect(dump).toMatchObject({
      schedule: '0 3 * * *',
      timezone: 'Europe/Berlin',
      command: 'sh -c echo hello',
      enabled: true,
      namespace: NAMESPACE,
      source: 'cronjob',
      cronJob: { namespace: NAMESPACE, name: 'db-dump', watchedBy: 'data-team' },
    });
    await until(() => jobNamed(`cronjob.${NAMESPACE}.cert-rotate`), 'the cert-rotate job');
    await until(() => watchStatus('data-team')?.watching === 2, 'the watch to count two CronJobs');
    expect(watchStatus('data-team')?.conditions).toEqual([
      expect.objectContaining({ type: 'Ready', status: 'True', message: 'watching 2 CronJobs' }),
    ]);
    const all = await jobs();
    expect(all.map((job) => job.name).sort()).toEqual(
      [`cronjob.${NAMESPACE}.cert-rotate`, `cronjob.${NAMESPACE}.db-dump`, 'own'].sort(),
    );
    // Every other job reads as before: no `source`, no `cronJob`.
    const own = all.find((job) => job.name === 'own')!;
    expect(own).not.toHaveProperty('source');
    expect(own).not.toHaveProperty('cronJob');
    // Nothing was written to the CronJobs.
    const stored = emu.objects('cronjobs', NAMESPACE).find((c) => c.metadata.name === 'db-dump')!;
    expect(stored.metadata.generation).toBe(1);
    expect(stored.metadata.labels).toEqual({ team: 'data' });
  });

  it('answers 409 naming the CronJob to every write of a watched job’s spec', async () => {
    const dump = await until(() => jobNamed(`cronjob.${NAMESPACE}.db-dump`), 'the db-dump job');
    const put = await service.request('PUT', `/api/jobs/${dump.id}`, {
      name: dump.name,
      schedule: '0 5 * * *',
      command: 'true',
    });
    expect(put.status).toBe(409);
    expect(put.body).toEqual({
      error:
        `job ${dump.id} mirrors CronJob ${NAMESPACE}/db-dump, which Crondeck watches but does not own: ` +
        `change the CronJob itself (kubectl -n ${NAMESPACE} edit cronjob db-dump)`,
    });
    const del = await service.request('DELETE', `/api/jobs/${dump.id}`);
    expect(del.status).toBe(409);
    expect((del.body as Obj).error).toContain(`CronJob ${NAMESPACE}/db-dump`);
    expect((await jobNamed(dump.name))?.schedule).toBe('0 3 * * *');
    // Run now and the toggle write the CronJob: only the service on a cluster does (this one is local).
    for (const [method, path, body] of [
      ['PATCH', `/api/jobs/${dump.id}/toggle`, { enabled: false }],
      ['POST', `/api/jobs/${dump.id}/run`, undefined],
    ] as const) {
      const refused = await service.request(method, path, body);
      expect(refused.status).toBe(409);
      expect((refused.body as Obj).error).toMatch(
        new RegExp(
          `^job ${dump.id} mirrors CronJob ${NAMESPACE}/db-dump: only Crondeck on its cluster can (suspend|run) it$`,
        ),
      );
    }
  });

  it('mirrors the CronJob’s changes: schedule, suspend', async () => {
    await kc.makeApiClient(BatchV1Api).patchNamespacedCronJob({
      namespace: NAMESPACE,
      name: 'db-dump',
      body: [
        { op: 'replace', path: '/spec/schedule', value: '30 2 * * *' },
        { op: 'add', path: '/spec/suspend', value: true },
      ],
    });
    const job = await until(async () => {
      const found = await jobNamed(`cronjob.${NAMESPACE}.db-dump`);
      return found?.schedule === '30 2 * * *' && found.enabled === false ? found : null;
    }, 'the change mirrored');
    expect(job.nextRun).toBeNull();
  });

  it('keeps a CronJob’s job across its deletion and re-creation under the same name, or starts anew', async () => {
    await createCronJob(kc, plainCronJob('kept', { labels: { history: 'keep' } }));
    await createCronJob(kc, plainCronJob('fresh', { labels: { history: 'restart' } }));
    await createCronJobWatch(kc, 'keeper', { selector: { matchLabels: { history: 'keep' } } });
    await createCronJobWatch(kc, 'restarter', {
      selector: { matchLabels: { history: 'restart' } },
      history: { onRecreate: 'restart' },
    });
    const kept = await until(() => jobNamed(`cronjob.${NAMESPACE}.kept`), 'the kept job');
    const fresh = await until(() => jobNamed(`cronjob.${NAMESPACE}.fresh`), 'the fresh job');
    const batch = kc.makeApiClient(BatchV1Api);
    for (const name of ['kept', 'fresh']) {
      await batch.deleteNamespacedCronJob({ namespace: NAMESPACE, name });
      await until(
        async () => (await jobNamed(`cronjob.${NAMESPACE}.${name}`))?.cronJob.watchedBy === null,
        `${name} no longer watched`,
      );
    }
    // A Helm upgrade that deletes and creates them again: new UIDs under the same names.
    await createCronJob(kc, plainCronJob('kept', { labels: { history: 'keep' } }));
    await createCronJob(kc, plainCronJob('fresh', { labels: { history: 'restart' } }));
    const keptAgain = await until(async () => {
      const found = await jobNamed(`cronjob.${NAMESPACE}.kept`);
      return found?.cronJob.watchedBy === 'keeper' ? found : null;
    }, 'the kept job watched again');
    expect(keptAgain.id).toBe(kept.id);
    const freshAgain = await until(async () => {
      const found = await jobNamed(`cronjob.${NAMESPACE}.fresh`);
      return found?.cronJob.watchedBy === 'restarter' ? found : null;
    }, 'the fresh job watched again');
    expect(freshAgain.id).not.toBe(fresh.id);
    expect((await service.request('GET', `/api/jobs/${fresh.id}`)).status).toBe(404);
  });

  it('stops watching what the selection no longer holds, keeping the job', async () => {
    const dump = (await jobNamed(`cronjob.${NAMESPACE}.db-dump`))!;
    await deleteCronJobWatch(kc, 'data-team');
    const kept = await until(async () => {
      const found = await jobNamed(dump.name);
      return found?.cronJob?.watchedBy === null ? found : null;
    }, 'the watching to stop');
    expect(kept).toMatchObject({ id: dump.id, source: 'cronjob', enabled: false });
    expect((await service.request('GET', `/api/jobs/${dump.id}`)).status).toBe(200);
  });
});
