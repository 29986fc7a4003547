import type { RunningService } from '../../src/service';
import type { Database } from '../../src/store/database';
import { findWatchedJob } from '../../src/store/watchedCronJobJobs';
import { createTestDatabase, onPostgresServer } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { runPod } from '../support/kube/kubelet';
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
 * caller's own token under SERVICE_AUTH=kubernetes. The API checks them first as RBAC would check
 * those commands (`patch cronjobs`, `create jobs`, in `batch`): what RBAC refuses them, the API
 * refuses (403) in the API server's words; what the cluster then refuses, it says so.
 */
describeOnPostgres('run now and toggle of a watched CronJob, as the caller', () => {
  let emu: KubeEmulator;
  let db: Database;
  let people: RbacCluster;
  let controller: Awaited<ReturnType<typeof runController>>;
  let service: RunningService;
  let proxy: ApiServerProxy;
  let jobId: number;
  let cluster: Awaited<ReturnType<typeof startCluster>>;

  const call = (person: Person, method: string, path: string, body?: unknown) =>
    callAs(service.url, person, method, path, body);
  const cronJob = () => emu.objects('cronjobs', NAMESPACE_A).find((c) => c.metadata.name === 'backup')!;

  beforeAll(async () => {
    db = await createTestDatabase();
    cluster = await startCluster();
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
    // The planner may see the CronJob, not patch it: refused as the API server refuses `kubectl patch`.
    const refused = await call(people.planner, 'PATCH', `/api/jobs/${jobId}/toggle`, { enabled: false });
    expect(refused).toMatchObject({
      status: 403,
      body: {
        error: `User "${people.planner.username}" cannot patch resource "cronjobs" in API group "batch" in the namespace "${NAMESPACE_A}"`,
      },
    });
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
    // The planner may ask for a ScheduledJob's runs, but may not create Jobs: no run of a CronJob.
    const refused = await call(people.planner, 'POST', `/api/jobs/${jobId}/run`);
    expect(refused).toMatchObject({
      status: 403,
      body: {
        error: `User "${people.planner.username}" cannot create resource "jobs" in API group "batch" in the namespace "${NAMESPACE_A}"`,
      },
    });
    // Who may not see the CronJob learns nothing of the job.
    const unseen = await call(people.viewer, 'GET', `/api/jobs/${jobId}`);
    expect(unseen).toMatchObject({ status: 403 });
    expect(unseen.body.error).toContain('cannot get resource "cronjobs" in API group "batch" for job');
    const unseenRuns = await call(people.viewer, 'GET', `/api/executions?jobId=${jobId}`);
    expect(unseenRuns.status).toBe(403);
    expect((await call(people.planner, 'GET', `/api/jobs/${jobId}`)).status).toBe(200);
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

  it('backfills only where the CronJobWatch allows it: its Jobs, with the caller’s token, recorded as backfill runs', async () => {
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const range = {
      from: new Date(hour - 2 * 3_600_000).toISOString(),
      to: new Date(hour - 3_600_000).toISOString(),
      concurrency: 1,
    };
    // `backups` does not allow it: the CronJob is someone else's.
    const refused = await call(people.editor, 'POST', `/api/jobs/${jobId}/backfill`, range);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain('unless its CronJobWatch sets allowBackfill: true');

    await createCronJob(
      cluster.kc,
      plainCronJob('reindex', {
        labels: { reindex: 'yes' },
        schedule: '0 * * * *',
        spec: { timeZone: 'UTC' },
      }),
    );
    await createCronJobWatch(cluster.kc, 'reindexing', {
      selector: { matchLabels: { reindex: 'yes' } },
      allowBackfill: true,
    });
    const reindexId = await until(
      async () => (await findWatchedJob(db.pool, NAMESPACE_A, 'reindex'))?.id,
      'the reindex job',
    );
    const reindex = await call(people.editor, 'GET', `/api/jobs/${reindexId}`);
    expect(reindex.body.cronJob).toMatchObject({
      name: 'reindex',
      watchedBy: 'reindexing',
      allowBackfill: true,
    });
    const asked = await call(people.editor, 'POST', `/api/jobs/${reindexId}/backfill`, range);
    expect(asked).toMatchObject({ status: 202, body: { slots: 2 } });
    const backfillJobs = () =>
      emu
        .objects('jobs', NAMESPACE_A)
        .filter(
          (j) => j.metadata.name.startsWith('reindex-') && j.metadata.labels?.['crondeck.dev/backfill-id'],
        );
    // Made before the answer with the editor's token, suspended; the controller resumes the first.
    expect(backfillJobs()).toHaveLength(2);
    const first = await until(() => backfillJobs().find((j) => !j.spec.suspend), 'the first resumed');
    expect(first.metadata.annotations['crondeck.dev/scheduled-time']).toBe(range.from);
    emu.syncJob(NAMESPACE_A, first.metadata.name);
    const pod = emu
      .objects('pods', NAMESPACE_A)
      .find((p) => p.metadata.ownerReferences?.[0]?.uid === first.metadata.uid)!;
    expect(await runPod(emu, NAMESPACE_A, pod.metadata.name)).toBe(0);
    emu.syncJob(NAMESPACE_A, first.metadata.name);
    // Recorded from what the cluster shows, as the backfill run of its slot.
    const runs = await until(async () => {
      const listed = (await call(people.editor, 'GET', `/api/executions?jobId=${reindexId}`)).body as Obj[];
      return listed.length > 0 ? listed : null;
    }, 'the backfill run recorded');
    expect(runs).toEqual([
      expect.objectContaining({ status: 'success', trigger: 'backfill', scheduledAt: range.from }),
    ]);
    // Lists show a watched CronJob's job, and its runs, where one may list CronJobs (as `kubectl get
    // cronjobs`): the editor may, the viewer (ScheduledJobs only) may not.
    const names = async (person: Person, path: string) => {
      const listed = await call(person, 'GET', path);
      expect({ path, status: listed.status }).toEqual({ path, status: 200 });
      return (listed.body as Obj[]).map((job) => job.name as string).sort();
    };
    const watchedNames = ['cronjob.' + NAMESPACE_A + '.backup', 'cronjob.' + NAMESPACE_A + '.reindex'];
    for (const path of ['/api/jobs', `/api/jobs?namespace=${NAMESPACE_A}`]) {
      const editors = await names(people.editor, path);
      expect(editors).toEqual(expect.arrayContaining(watchedNames));
      expect(await names(people.viewer, path)).toEqual(
        editors.filter((name) => !watchedNames.includes(name)),
      );
    }
    const runIds = async (person: Person) =>
      ((await call(person, 'GET', '/api/executions')).body as Obj[]).map((run) => run.id as number);
    expect(await runIds(people.editor)).toContain(runs[0]!.id);
    expect(await runIds(people.viewer)).not.toContain(runs[0]!.id);
    const totalJobs = async (person: Person) =>
      (await call(person, 'GET', '/api/stats')).body.totalJobs as number;
    expect((await totalJobs(people.editor)) - (await totalJobs(people.viewer))).toBe(watchedNames.length);
    // A run's output is its pod's log: who may not get the CronJob does not read it.
    expect((await call(people.editor, 'GET', `/api/executions/${runs[0]!.id}`)).status).toBe(200);
    const unseen = await call(people.viewer, 'GET', `/api/executions/${runs[0]!.id}`);
    expect(unseen.status).toBe(403);
    expect(unseen.body.error).toContain(
      `cannot get resource "cronjobs" in API group "batch" for execution ${runs[0]!.id}`,
    );
  }, 60_000);
});
