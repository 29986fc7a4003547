import type { Database } from '../../src/store/database';
import { findJobForResource } from '../../src/store/resourceJobs';
import { Receiver } from '../alerts/support/receiver';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { evictPod, failImagePull, failPodOomKilled } from '../support/kube/kubeletFaults';
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
} from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Why a run on the cluster failed, as the pod's status says it: a container OOM-killed, the pod
 * evicted, its image unpullable. The stand-in kubelet writes the pod's status as a real kubelet
 * does (kubeletFaults.ts), the emulated Job controller ends the Job from it, and the reason reaches
 * the execution, the alert a real HTTP receiver gets, and the ScheduledJob's status; whether the
 * pod's own report came first (it cannot know it was OOM-killed), or never came.
 */
describe('failure reasons on the emulated cluster', () => {
  let emu: KubeEmulator;
  let db: Database;
  let service: TestService;
  let receiver: Receiver;
  let stopController: () => Promise<void>;
  const yearly = recentYearlyFire();
  // The cluster's clock runs with real time; the deadline test moves it on.
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };

  beforeAll(async () => {
    const cluster = await startCluster({ now: clock.now });
    emu = cluster.emu;
    db = await createTestDatabase();
    receiver = await Receiver.start();
    // One clock for the cluster, the controller and the service (its alert worker), as in a cluster.
    service = await startTestService({
      db,
      clock,
      env: { SERVICE_REPORT_SECRET: REPORT_SECRET },
      alerting: { pollIntervalMs: 50 },
    });
    const controller = await runController(cluster.kc, db, { reportUrl: service.url, clock });
    stopController = () => controller.stop();
    const common = { schedule: yearly.schedule, timeZone: 'UTC', command: 'sleep 30' };
    await createScheduledJob(cluster.kc, 'hungry', {
      ...common,
      resources: { limits: { memory: '64Mi' } },
      onFailure: `${receiver.url}/hungry`,
    });
    await createScheduledJob(cluster.kc, 'sidecar-hungry', {
      ...common,
      image: 'registry.example/tools:1',
      resources: { limits: { memory: '128Mi' } },
      onFailure: `${receiver.url}/sidecar-hungry`,
    });
    await createScheduledJob(cluster.kc, 'evicted', { ...common, onFailure: `${receiver.url}/evicted` });
    await createScheduledJob(cluster.kc, 'typo', {
      ...common,
      image: 'registry.example/nightly:v2-typo',
      timeout: 10,
      onFailure: `${receiver.url}/typo`,
    });
    await createScheduledJob(cluster.kc, 'stuck', {
      ...common,
      timeout: 10,
      onFailure: `${receiver.url}/stuck`,
    });
    // No timeout (the CRD's default): nothing but the controller bounds a run that cannot start.
    await createScheduledJob(cluster.kc, 'typo-forever', {
      ...common,
      image: 'registry.example/nightly:v2-typo',
      onFailure: `${receiver.url}/typo-forever`,
    });
    await createScheduledJob(cluster.kc, 'refused', { ...common, onFailure: `${receiver.url}/refused` });
    await until(() => emu.objects('cronjobs', NAMESPACE).length === 7, 'the CronJobs');
  }, 60_000);
  afterAll(async () => {
    await stopController();
    await service.stop();
    await receiver.close();
    await emu.stop();
    await db.close();
  });

  /** The CronJob controller fires, the Job controller makes the pod. */
  function fire(name: string): { job: Obj; pod: Obj } {
    const job = emu.fireCronJob(NAMESPACE, name, yearly.firedAt());
    emu.syncJob(NAMESPACE, job.metadata.name);
    const pod = emu
      .objects('pods', NAMESPACE)
      .find((p) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid)!;
    return { job, pod };
  }
  const jobIdOf = async (name: string) => (await findJobForResource(db.pool, NAMESPACE, name))!.id;
  const executions = async (jobId: number) =>
    (await service.request('GET', `/api/executions?jobId=${jobId}`)).body as Obj[];
  const statusOf = (name: string) =>
    emu.objects('scheduledjobs', NAMESPACE).find((sj) => sj.metadata.name === name)?.status as
      Obj | undefined;

  /** The controller has kept `reason` for the run of `job` (in the database), as its pods said it. */
  const untilReasonKept = (job: Obj, reason: string) =>
    until(
      async () =>
        (
          await db.pool.query('SELECT 1 FROM cluster_runs WHERE run_uid = $1 AND reason = $2', [
            job.metadata.uid,
            reason,
          ])
        ).rowCount === 1,
      'the controller to see the pod',
    );
  /** The executions of job `id`, once there is one. */
  const untilRecorded = (id: number) =>
    until(async () => {
      const listed = await executions(id);
      return listed.length > 0 ? listed : null;
    }, 'the controller to record the run');
  /** The Kubernetes Job as stored now. */
  const stored = (job: Obj) =>
    emu.objects('jobs', NAMESPACE).find((j) => j.metadata.uid === job.metadata.uid)!;

  /** The pod's `crondeck run` reporting its final attempt, as it does over HTTP. */
  async function reportFinal(jobId: number, job: Obj, pod: Obj, fields: Obj) {
    const answer = await reportFinalAttempt(service, { jobId, job, pod, at: new Date() }, fields);
    expect(answer.status).toBe(201);
  }

  it('OOMKilled, the whole container killed before it could report: from the pod, with its limit', async () => {
    const id = await jobIdOf('hungry');
    const { job, pod } = fire('hungry');
    await failPodOomKilled(emu, NAMESPACE, pod.metadata.name);
    emu.syncJob(NAMESPACE, job.metadata.name);

    const [execution] = await untilRecorded(id);
    const message =
      'container "run" reached its memory limit of 64Mi and was killed by the kernel (Kubernetes does not report the peak usage)';
    expect(execution).toMatchObject({
      status: 'failed',
      exitCode: -1,
      reason: 'OOMKilled',
      reasonMessage: message,
    });

    await until(() => receiver.to('/hungry').length === 1, 'the alert');
    expect(receiver.to('/hungry')[0]!.json.execution).toMatchObject({
      reason: 'OOMKilled',
      reasonMessage: message,
      hint: 'raise resources.limits.memory of the ScheduledJob, or make the command use less memory',
    });
    const status = await until(
      () => statusOf('hungry')?.lastFailureReason && statusOf('hungry'),
      'the status',
    );
    expect(status).toMatchObject({ lastFailureReason: 'OOMKilled', lastFailureMessage: message });
    expect(Date.parse(status.lastFailureTime)).toBeGreaterThan(0);
  }, 60_000);

  it('OOMKilled after the runner reported the attempt lost: the reason reaches that execution and its one alert', async () => {
    const id = await jobIdOf('sidecar-hungry');
    const { job, pod } = fire('sidecar-hungry');
    // The runner sidecar outlives the job container, and reports what it saw: the container gone.
    await reportFinal(id, job, pod, {
      exitCode: -1,
      stderr: '[crondeck] the job container ended before the attempt did: attempt 0 has no exit status\n',
      reason: { code: 'JobContainerLost', message: 'the job container ended before the attempt did' },
    });
    await failPodOomKilled(emu, NAMESPACE, pod.metadata.name);
    emu.syncJob(NAMESPACE, job.metadata.name);

    // The alert waited for the controller's word (up to a minute), and carries it.
    await until(() => receiver.to('/sidecar-hungry').length === 1, 'the alert');
    expect(receiver.to('/sidecar-hungry')[0]!.json.execution).toMatchObject({
      exitCode: -1,
      reason: 'OOMKilled',
      reasonMessage: expect.stringContaining('container "job" reached its memory limit of 128Mi'),
      hint: expect.stringContaining('resources.limits.memory'),
    });
    const listed = await executions(id);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ status: 'failed', reason: 'OOMKilled' });
    await until(() => statusOf('sidecar-hungry')?.lastFailureReason === 'OOMKilled', 'the status');

    // The run ended and was settled: no second execution, no second alert.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await executions(id)).toHaveLength(1);
    expect(receiver.to('/sidecar-hungry')).toHaveLength(1);
    const metrics = (await service.request('GET', '/metrics')).text;
    expect(metrics).toMatch(/service_executions_total\{status="failed"\} [1-9]/);
  }, 60_000);

  it('Evicted: the kubelet’s message, in place of the stop the runner reported', async () => {
    const id = await jobIdOf('evicted');
    const { job, pod } = fire('evicted');
    // The eviction's TERM reaches the runner first: it stops the command and reports.
    await reportFinal(id, job, pod, {
      exitCode: 143,
      reason: { code: 'Stopped', message: 'stopped before it ended' },
    });
    await evictPod(emu, NAMESPACE, pod.metadata.name);
    emu.syncJob(NAMESPACE, job.metadata.name);

    await until(() => receiver.to('/evicted').length === 1, 'the alert');
    const evicted = expect.stringContaining('The node was low on resource: memory.');
    expect(receiver.to('/evicted')[0]!.json.execution).toMatchObject({
      reason: 'Evicted',
      reasonMessage: evicted,
      hint: expect.stringContaining('set resources.requests'),
    });
    expect(await executions(id)).toEqual([
      expect.objectContaining({ reason: 'Evicted', reasonMessage: evicted }),
    ]);
    await until(() => statusOf('evicted')?.lastFailureReason === 'Evicted', 'the status');
  }, 60_000);

  it('ImagePullBackOff until the deadline: the pod is gone by then, its reason was kept', async () => {
    const id = await jobIdOf('typo');
    const { job, pod } = fire('typo');
    await failImagePull(emu, NAMESPACE, pod.metadata.name);
    // The controller sees the pod wait for its image (kept for the run, in the database).
    await untilReasonKept(job, 'ImagePullBackOff');
    // activeDeadlineSeconds passes: the Job controller deletes the pending pod and fails the Job.
    offsetMs += 10 * 60_000;
    emu.syncJob(NAMESPACE, job.metadata.name);
    expect(emu.objects('pods', NAMESPACE).some((p) => p.metadata.uid === pod.metadata.uid)).toBe(false);

    const [execution] = await untilRecorded(id);
    const message = expect.stringContaining(
      'image "registry.example/nightly:v2-typo" of container "job" could not be pulled: Back-off pulling image',
    );
    expect(execution).toMatchObject({
      status: 'timeout',
      reason: 'ImagePullBackOff',
      reasonMessage: message,
    });
    await until(() => receiver.to('/typo').length === 1, 'the alert');
    expect(receiver.to('/typo')[0]!.json).toMatchObject({
      event: 'timeout',
      execution: {
        reason: 'ImagePullBackOff',
        reasonMessage: message,
        hint: 'check the image name and pull secret',
      },
    });
    await until(() => statusOf('typo')?.lastFailureReason === 'ImagePullBackOff', 'the status');
  }, 60_000);

  it('ImagePullBackOff without a timeout: the controller ends the run after ten minutes, as failed', async () => {
    const id = await jobIdOf('typo-forever');
    const { job, pod } = fire('typo-forever');
    expect(job.spec.activeDeadlineSeconds).toBeUndefined();
    await failImagePull(emu, NAMESPACE, pod.metadata.name);
    await untilReasonKept(job, 'ImagePullBackOff');
    // Before its ten minutes the run is left waiting: the image may yet come.
    offsetMs += 9 * 60_000;
    await failImagePull(emu, NAMESPACE, pod.metadata.name);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stored(job).spec.activeDeadlineSeconds).toBeUndefined();
    // The kubelet keeps retrying the pull (the pod's status changes again) past the ten minutes.
    offsetMs += 2 * 60_000;
    await failImagePull(emu, NAMESPACE, pod.metadata.name);
    await until(() => stored(job).spec.activeDeadlineSeconds !== undefined, 'the controller to end the Job');
    expect(stored(job).spec.activeDeadlineSeconds).toBeGreaterThanOrEqual(11 * 60);
    // Ended on whichever of the kubelet's two words it read last.
    const pulling = expect.stringMatching(/^(ErrImagePull|ImagePullBackOff)$/);
    expect(stored(job).metadata.annotations).toMatchObject({ 'crondeck.dev/ended-before-start': pulling });
    // The Job controller fails it at once and deletes the pod, as at any deadline.
    emu.syncJob(NAMESPACE, job.metadata.name);
    expect(stored(job).status.conditions).toContainEqual(
      expect.objectContaining({ type: 'Failed', status: 'True', reason: 'DeadlineExceeded' }),
    );
    expect(emu.objects('pods', NAMESPACE).some((p) => p.metadata.uid === pod.metadata.uid)).toBe(false);

    const [execution] = await untilRecorded(id);
    expect(execution).toMatchObject({
      status: 'failed',
      reason: pulling,
      reasonMessage: expect.stringContaining('image "registry.example/nightly:v2-typo" of container "job"'),
    });
    await until(() => receiver.to('/typo-forever').length === 1, 'the alert');
    expect(receiver.to('/typo-forever')[0]!.json).toMatchObject({ event: 'failed' });
  }, 60_000);

  it('a Job that makes no pod (the API server refusing it) is ended after ten minutes, saying so', async () => {
    const id = await jobIdOf('refused');
    const { job, pod } = fire('refused');
    // Eleven minutes on, the Job has no pod, as when a ResourceQuota or an admission policy refuses
    // every pod the Job controller makes (the pod's deletion brings the controller to the Job).
    offsetMs += 11 * 60_000;
    emu.store.remove('/pods', NAMESPACE, pod.metadata.name);
    await until(() => stored(job).spec.activeDeadlineSeconds !== undefined, 'the controller to end the Job');
    emu.syncJob(NAMESPACE, job.metadata.name);
    const [execution] = await untilRecorded(id);
    expect(execution).toMatchObject({
      status: 'failed',
      reason: 'FailedCreate',
      reasonMessage: expect.stringContaining('the Job made no pod in 10 minutes'),
    });
  }, 60_000);

  it('DeadlineExceeded: the cluster stopped the run, which its runner, stopped too, could not say', async () => {
    const id = await jobIdOf('stuck');
    const { job, pod } = fire('stuck');
    // At the deadline the Job controller deletes the pod: its runner gets TERM, stops and reports.
    // The clock moves first, as it does on a cluster: the report's alert then waits its minute for
    // the controller's word from the deadline's time, not from ten minutes before it (where the
    // wait would be over already and the alert could go out saying only "Stopped").
    offsetMs += 10 * 60_000;
    await reportFinal(id, job, pod, {
      exitCode: 143,
      reason: { code: 'Stopped', message: 'stopped before it ended' },
    });
    emu.syncJob(NAMESPACE, job.metadata.name);

    await until(() => receiver.to('/stuck').length === 1, 'the alert');
    expect(receiver.to('/stuck')[0]!.json.execution).toMatchObject({
      exitCode: 143,
      reason: 'DeadlineExceeded',
      reasonMessage: 'Job was active longer than specified deadline',
      hint: expect.stringContaining('raise timeout'),
    });
    expect(await executions(id)).toEqual([expect.objectContaining({ reason: 'DeadlineExceeded' })]);
  }, 60_000);
});
