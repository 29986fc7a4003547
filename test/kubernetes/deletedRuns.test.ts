import { BatchV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { RunningController } from '../../src/controller/startController';
import type { Database } from '../../src/store/database';
import { findJobForResource } from '../../src/store/resourceJobs';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { failPodBeforeStart } from '../support/kube/kubelet';
import { startTestService, type TestService } from '../support/service';
import {
  createScheduledJob,
  NAMESPACE,
  recentYearlyFire,
  REPORT_SECRET,
  reportFinalAttempt,
  runController,
  startCluster,
  until,
  untilSettled,
} from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MINUTE = 60_000;
/** Long enough that the CronJob controller's deletion (at once here, within a second on a cluster) comes first. */
const GRACE_MS = 2000;

/**
 * Runs whose Kubernetes Job is deleted before the controller recorded them, as a real cluster's
 * CronJob controller deletes them: the finished Jobs past `successfulJobsHistoryLimit` and
 * `failedJobsHistoryLimit` within a second of their end (the emulated one does it at once), and
 * under `concurrencyPolicy: Replace` the active Job when the next fire time comes. A run whose pod
 * never reported is recorded all the same, once, from the Job as last seen; a pod's report that
 * lands within the grace is the run instead; one that comes after the controller recorded it is
 * refused.
 */
describe('runs whose Kubernetes Job was deleted on the emulated cluster', () => {
  let emu: KubeEmulator;
  let kc: KubeConfig;
  let db: Database;
  let service: TestService;
  let controller: RunningController & { logger: { lines: Obj[] } };
  const yearly = recentYearlyFire();
  // The cluster's clock runs with real time; tests move it on (deadlines, fire times).
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  /** Moves the clock to `seconds` past the next minute. */
  const toNextMinute = (seconds: number): Date => {
    const minute = new Date((Math.floor(clock.now().getTime() / MINUTE) + 1) * MINUTE);
    offsetMs = minute.getTime() + seconds * 1000 - Date.now();
    return minute;
  };

  beforeAll(async () => {
    const cluster = await startCluster({ now: clock.now });
    ({ emu, kc } = cluster);
    db = await createTestDatabase();
    service = await startTestService({ db, clock, env: { SERVICE_REPORT_SECRET: REPORT_SECRET } });
    controller = await runController(kc, db, { reportUrl: service.url, clock, reportGraceMs: GRACE_MS });
    const once = { schedule: yearly.schedule, timeZone: 'UTC', command: 'sleep 30' };
    await createScheduledJob(kc, 'no-history', { ...once, failedJobsHistoryLimit: 0 });
    await createScheduledJob(kc, 'late-report', { ...once, failedJobsHistoryLimit: 0 });
    // The default failedJobsHistoryLimit, 1.
    await createScheduledJob(kc, 'deadlines', { ...once, timeout: 10 });
    await createScheduledJob(kc, 'by-hand', { ...once, timeout: 10 });
    const minutely = { schedule: '* * * * *', timeZone: 'UTC', command: 'sleep 300' };
    await createScheduledJob(kc, 'replaced', { ...minutely, concurrencyPolicy: 'Replace' });
    await createScheduledJob(kc, 'replaced-reports', { ...minutely, concurrencyPolicy: 'Replace' });
    await until(() => emu.objects('cronjobs', NAMESPACE).length === 6, 'the CronJobs');
  }, 60_000);
  afterAll(async () => {
    await controller?.stop();
    await service?.stop();
    await emu?.stop();
    await db?.close();
  });

  const jobIdOf = async (name: string) => (await findJobForResource(db.pool, NAMESPACE, name))!.id;
  const executions = async (jobId: number) =>
    (await service.request('GET', `/api/executions?jobId=${jobId}`)).body as Obj[];
  const untilRecorded = (id: number, count = 1) =>
    until(async () => {
      const listed = await executions(id);
      return listed.length >= count ? listed : null;
    }, 'the controller to record the run');
  /** The Kubernetes Job as stored now; undefined once deleted. */
  const stored = (job: Obj) =>
    emu.objects('jobs', NAMESPACE).find((j) => j.metadata.uid === job.metadata.uid);
  const podOf = (job: Obj) =>
    emu.objects('pods', NAMESPACE).find((p) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid)!;
  /** The CronJob controller fires, the Job controller makes the pod. */
  function fire(name: string): { job: Obj; pod: Obj } {
    const job = emu.fireCronJob(NAMESPACE, name, yearly.firedAt());
    emu.syncJob(NAMESPACE, job.metadata.name);
    return { job, pod: podOf(job) };
  }
  /** The pod's `crondeck run` reporting its final attempt, as it does over HTTP. */
  const reportFinal = (jobId: number, job: Obj, pod: Obj, fields: Obj) =>
    reportFinalAttempt(service, { jobId, job, pod, at: clock.now() }, fields);
  /** The controller holds `job` as deleted, its run not settled yet (its reconciler's memo). */
  const untilKeptAsDeleted = (job: Obj) => {
    const reconciler = (controller.manager as unknown as { runReconciler?: Obj }).runReconciler;
    return until(
      () =>
        (reconciler?.deleted?.named?.(NAMESPACE, job.metadata.name) as Obj[] | undefined)?.some(
          (kept) => kept.uid === job.metadata.uid,
        ),
      `the controller to see ${job.metadata.name} deleted`,
    );
  };
  /** The controller settled the run of deleted Job `job`: it will write nothing more for it. */
  const untilDeletedJobSettled = (job: Obj) =>
    until(
      () =>
        controller.logger.lines.some(
          (line) =>
            line.msg === 'settled the run of a deleted Kubernetes Job' && line.runUid === job.metadata.uid,
        ),
      `the controller to settle the run of deleted ${job.metadata.name}`,
    );

  it('records the run of a Job deleted as it failed (failedJobsHistoryLimit: 0) once, and refuses the late report', async () => {
    const id = await jobIdOf('no-history');
    const { job, pod } = fire('no-history');
    await failPodBeforeStart(emu, NAMESPACE, pod.metadata.name);
    emu.syncJob(NAMESPACE, job.metadata.name);
    expect(stored(job)).toBeUndefined();

    const [execution] = await untilRecorded(id);
    expect(execution).toMatchObject({
      status: 'failed',
      exitCode: -1,
      reason: 'BackoffLimitExceeded',
      scheduledAt: yearly.firedAt().toISOString(),
    });
    await untilDeletedJobSettled(job);
    const late = await reportFinal(id, job, pod, { exitCode: 1 });
    expect(late.status).toBe(409);
    expect(await executions(id)).toHaveLength(1);
  }, 30_000);

  it('takes a report that lands after the Job was deleted, within the grace, as the run', async () => {
    const id = await jobIdOf('late-report');
    const { job, pod } = fire('late-report');
    await failPodBeforeStart(emu, NAMESPACE, pod.metadata.name);
    emu.syncJob(NAMESPACE, job.metadata.name);
    expect(stored(job)).toBeUndefined();
    await untilKeptAsDeleted(job);

    const answer = await reportFinal(id, job, pod, { exitCode: 3, stderr: 'boom\n' });
    expect(answer.status).toBe(201);
    await untilDeletedJobSettled(job);
    expect(await executions(id)).toEqual([expect.objectContaining({ status: 'failed', exitCode: 3 })]);
  }, 30_000);

  it('records two runs past their deadline when the second one’s end deletes the first one’s Job (failedJobsHistoryLimit: 1)', async () => {
    const id = await jobIdOf('deadlines');
    const { job: scheduled } = fire('deadlines');
    offsetMs += 2000;
    // Run now (`kubectl create job --from`, Crondeck's run-now): the CronJob controls it too.
    const manual = emu.createJobFromCronJob(NAMESPACE, 'deadlines', 'deadlines-manual-1');
    emu.syncJob(NAMESPACE, manual.metadata.name);
    offsetMs += 10 * MINUTE;
    emu.syncJob(NAMESPACE, scheduled.metadata.name);
    emu.syncJob(NAMESPACE, manual.metadata.name);
    // The older failed Job goes, less than the grace after it ended.
    expect(stored(scheduled)).toBeUndefined();
    expect(stored(manual)).toBeDefined();

    const recorded = await untilRecorded(id, 2);
    expect(recorded).toHaveLength(2);
    for (const execution of recorded) {
      expect(execution).toMatchObject({ status: 'timeout', exitCode: -1, reason: 'DeadlineExceeded' });
    }
    await untilDeletedJobSettled(scheduled);
    await untilSettled(controller, manual);
    expect(await executions(id)).toHaveLength(2);
  }, 30_000);

  it('records a run whose Job was deleted by hand: half a second after its deadline, or while it ran', async () => {
    const id = await jobIdOf('by-hand');
    const batch = kc.makeApiClient(BatchV1Api);
    const remove = (job: Obj) =>
      batch.deleteNamespacedJob({
        name: job.metadata.name,
        namespace: NAMESPACE,
        propagationPolicy: 'Background',
      });

    const { job: ended } = fire('by-hand');
    offsetMs += 10 * MINUTE;
    emu.syncJob(NAMESPACE, ended.metadata.name);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await remove(ended);
    const [timedOut] = await untilRecorded(id);
    expect(timedOut).toMatchObject({ status: 'timeout', exitCode: -1, reason: 'DeadlineExceeded' });
    await untilDeletedJobSettled(ended);

    const running = emu.createJobFromCronJob(NAMESPACE, 'by-hand', 'by-hand-manual-1');
    emu.syncJob(NAMESPACE, running.metadata.name);
    await remove(running);
    const recorded = await untilRecorded(id, 2);
    expect(recorded.find((e) => e.id !== timedOut!.id)).toMatchObject({
      status: 'failed',
      exitCode: -1,
      reason: 'JobDeleted',
      reasonMessage: expect.stringContaining('deleted before the run ended'),
    });
    await untilDeletedJobSettled(running);
    expect(await executions(id)).toHaveLength(2);
  }, 30_000);

  it('records a run replaced by the next fire time (concurrencyPolicy: Replace) as failed, Replaced, once', async () => {
    const id = await jobIdOf('replaced');
    const slot = toNextMinute(5);
    const first = emu.syncCronJob(NAMESPACE, 'replaced')!;
    emu.syncJob(NAMESPACE, first.metadata.name);
    toNextMinute(5);
    const second = emu.syncCronJob(NAMESPACE, 'replaced')!;
    expect(stored(first)).toBeUndefined();
    expect(stored(second)).toBeDefined();

    const [execution] = await untilRecorded(id);
    expect(execution).toMatchObject({
      status: 'failed',
      exitCode: -1,
      reason: 'Replaced',
      reasonMessage: expect.stringContaining('a newer run replaced this one'),
      scheduledAt: slot.toISOString(),
    });
    await untilDeletedJobSettled(first);
    // The newer run goes on: nothing is recorded for it yet, and the replaced one counts once.
    expect(await executions(id)).toHaveLength(1);
  }, 30_000);

  it('takes the report a replaced run’s runner sends as it is stopped as the run', async () => {
    const id = await jobIdOf('replaced-reports');
    toNextMinute(5);
    const first = emu.syncCronJob(NAMESPACE, 'replaced-reports')!;
    emu.syncJob(NAMESPACE, first.metadata.name);
    const pod = podOf(first);
    toNextMinute(5);
    emu.syncCronJob(NAMESPACE, 'replaced-reports');
    expect(stored(first)).toBeUndefined();
    await untilKeptAsDeleted(first);

    // Its pod is being deleted: the kubelet stops the runner, which reports the attempt it cut short.
    const answer = await reportFinal(id, first, pod, {
      exitCode: 143,
      reason: { code: 'Stopped', message: 'stopped before it ended' },
    });
    expect(answer.status).toBe(201);
    await untilDeletedJobSettled(first);
    expect(await executions(id)).toEqual([expect.objectContaining({ status: 'failed', exitCode: 143 })]);
  }, 30_000);
});
