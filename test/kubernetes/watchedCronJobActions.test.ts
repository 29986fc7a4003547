import type { RunningService } from '../../src/service';
import type { Database } from '../../src/store/database';
import { findWatchedJob } from '../../src/store/watchedCronJobJobs';
import { createTestDatabase, onPostgresServer } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import type { ApiServerProxy } from './apiServerProxy';
import { runController, startCluster, until } from './cluster';
import {
  callAs,
  grantRole,
  NAMESPACE_A,
  type Person,
  type RbacCluster,
  serveWithKubernetesAuth,
  setUpPeople,
} from './rbacCluster';
import { createCronJob, createCronJobWatch, plainCronJob } from './watchedCronJobsSupport';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const describeOnPostgres = onPostgresServer ? describe : describe.skip;

/**
 * Issue 40: run now and the toggle of a watched CronJob's job go to the CronJob itself, as
 * `kubectl create job --from=cronjob/…` and `kubectl patch cronjob … spec.suspend` would, with the
 * caller's own token under SERVICE_AUTH=kubernetes: what RBAC refuses them, the API refuses (403).
 */
describeOnPostgres('run now and toggle of a watched CronJob, as the caller', () => {
  let emu: KubeEmulator;
  let db: Database;
  let people: RbacCluster;
  let controller: Awaited<ReturnType<typeof runController>>;
  let service: RunningService;
  let proxy: ApiServerProxy;
  let jobId: number;

  const call = (person: Person, method: string, path: string, body?: unknown) =>
    callAs(service.url, person, method, path, body);
  const cronJob = () => emu.objects('cronjobs', NAMESPACE_A).find((c) => c.metadata.name === 'backup')!;

  beforeAll(async () => {
    db = await createTestDatabase();
    const cluster = await startCluster();
    emu = cluster.emu;
    people = await setUpPeople(emu);
    controller = await runController(cluster.kc, db);
    ({ service, proxy } = await serveWithKubernetesAuth(emu, db, people.service));
    await createCronJob(cluster.kc, plainCronJob('backup', { labels: { backup: 'yes' } }));
    await createCronJobWatch(cluster.kc, 'backups', { selector: { matchLabels: { backup: 'yes' } } });
    jobId = await until(async () => (await findWatchedJob(db.pool, NAMESPACE_A, 'backup'))?.id, 'the job');
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await controller?.stop();
    await proxy?.stop();
    await emu?.stop();
    await db?.close();
  });

  it('suspends and resumes the CronJob with the caller’s token', async () => {
    // The editor may not patch CronJobs yet: the cluster refuses their request.
    const refused = await call(people.editor, 'PATCH', `/api/jobs/${jobId}/toggle`, { enabled: false });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/^the cluster refused the request made with your credentials: /);
    expect(cronJob().spec.suspend).toBe(false);
    expect((await call(people.admin, 'GET', `/api/jobs/${jobId}`)).body.enabled).toBe(true);

    await grantRole(
      emu,
      NAMESPACE_A,
      'cronjob-patcher',
      [{ apiGroups: ['batch'], resources: ['cronjobs'], verbs: ['patch'] }],
      'editor',
    );
    const suspended = await call(people.editor, 'PATCH', `/api/jobs/${jobId}/toggle`, { enabled: false });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({
      enabled: false,
      source: 'cronjob',
      changedBy: people.editor.username,
    });
    expect(cronJob().spec.suspend).toBe(true);

    expect((await call(people.editor, 'PATCH', `/api/jobs/${jobId}/toggle`, { enabled: true })).status).toBe(
      200,
    );
    expect(cronJob().spec.suspend).toBe(false);
    // The controller's mirror agrees.
    await until(
      async () => (await findWatchedJob(db.pool, NAMESPACE_A, 'backup'))?.enabled === true,
      'mirrored',
    );
  }, 60_000);

  it('runs now as kubectl create job --from=cronjob does, with the caller’s token', async () => {
    // The planner may ask for runs, but may not create Jobs: the cluster says no.
    const refused = await call(people.planner, 'POST', `/api/jobs/${jobId}/run`);
    expect(refused.status).toBe(403);
    const manualJobs = () =>
      emu.objects('jobs', NAMESPACE_A).filter((j) => j.metadata.name.startsWith('backup-manual-'));
    expect(manualJobs()).toEqual([]);

    const ran = await call(people.editor, 'POST', `/api/jobs/${jobId}/run`);
    expect(ran).toMatchObject({ status: 200, body: { jobId } });
    const [made] = manualJobs() as Obj[];
    expect(made!.metadata.annotations).toMatchObject({ 'cronjob.kubernetes.io/instantiate': 'manual' });
    expect(made!.metadata.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'CronJob',
        name: 'backup',
        uid: cronJob().metadata.uid,
        controller: true,
      }),
    ]);
    expect(made!.spec.template.spec.containers[0].command).toEqual(['sh', '-c', 'echo hello']);
  }, 60_000);
});
