import { reportTokenFor } from '../../src/domain/reportToken';
import type { Database } from '../../src/store/database';
import { findJobForResource } from '../../src/store/resourceJobs';
import { Receiver } from '../alerts/support/receiver';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { failPodBeforeStart, runPod } from '../support/kube/kubelet';
import { startTestService, type TestService } from '../support/service';
import {
  createScheduledJob,
  NAMESPACE,
  recentYearlyFire,
  REPORT_SECRET,
  runController,
  startCluster,
  until,
  untilSettled,
} from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * From `kubectl apply` of a ScheduledJob to a recorded execution and a delivered webhook: the
 * controller makes the CronJob, the emulator plays the CronJob and Job controllers, a stand-in
 * kubelet runs the pod's `crondeck run` as a real process, which reports to the service.
 */
describe('the full loop on the emulated cluster', () => {
  let emu: KubeEmulator;
  let db: Database;
  let service: TestService;
  let receiver: Receiver;
  let controller: Awaited<ReturnType<typeof runController>>;
  const yearly = recentYearlyFire();

  beforeAll(async () => {
    const cluster = await startCluster();
    emu = cluster.emu;
    db = await createTestDatabase();
    receiver = await Receiver.start();
    service = await startTestService({
      db,
      env: { SERVICE_REPORT_SECRET: REPORT_SECRET },
      alerting: { pollIntervalMs: 50 },
    });
    controller = await runController(cluster.kc, db, { reportUrl: service.url });
    await createScheduledJob(cluster.kc, 'loop', {
      schedule: yearly.schedule,
      timeZone: 'UTC',
      command: 'echo out; echo err >&2; exit 3',
      retry: { maxAttempts: 1, baseDelay: 0 },
      onFailure: `${receiver.url}/hook`,
    });
    await until(() => emu.objects('cronjobs', NAMESPACE).length === 1, 'the CronJob');
  }, 60_000);
  afterAll(async () => {
    await controller?.stop();
    await service.stop();
    await receiver.close();
    await emu.stop();
    await db.close();
  });

  /** The CronJob controller fires at `minute`, the Job controller makes the pod. */
  function fire(at: Date): { job: Obj; pod: Obj } {
    const job = emu.fireCronJob(NAMESPACE, 'loop', at);
    emu.syncJob(NAMESPACE, job.metadata.name);
    const pod = emu
      .objects('pods', NAMESPACE)
      .find((p) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid)!;
    return { job, pod };
  }
  const executions = async (jobId: number) =>
    (await service.request('GET', `/api/executions?jobId=${jobId}`)).body as Obj[];

  it('records every attempt a pod reports, alerts once, and the controller adds nothing', async () => {
    const { id } = (await findJobForResource(db.pool, NAMESPACE, 'loop'))!;
    const { job, pod } = fire(yearly.firedAt());
    expect(await runPod(emu, NAMESPACE, pod.metadata.name)).toBe(3);
    emu.syncJob(NAMESPACE, job.metadata.name);

    const recorded = await until(
      async () => ((await executions(id)).length === 2 ? executions(id) : null),
      'both attempts',
    );
    expect(recorded.map((e) => [e.attempt, e.status, e.exitCode])).toEqual([
      [1, 'failed', 3],
      [0, 'failed', 3],
    ]);
    const full = (await service.request('GET', `/api/executions/${recorded[0]!.id}`)).body;
    expect(full).toMatchObject({ stdout: 'out\n', stderr: expect.stringContaining('err\n') });
    await until(() => receiver.to('/hook').length === 1, 'the webhook');
    expect(receiver.to('/hook')[0]!.json).toMatchObject({
      event: 'failed',
      execution: { attempt: 1, exitCode: 3 },
    });

    // The Job failed; the controller sees the run closed by the pod's final report.
    await untilSettled(controller, job);
    expect(await executions(id)).toHaveLength(2);
  }, 60_000);

  it('records a run whose pod never started from the Job’s end', async () => {
    const { id } = (await findJobForResource(db.pool, NAMESPACE, 'loop'))!;
    const { job, pod } = fire(yearly.firedAt(1));
    await failPodBeforeStart(emu, NAMESPACE, pod.metadata.name);
    emu.syncJob(NAMESPACE, job.metadata.name);
    const unreported = await until(
      async () => (await executions(id)).find((e) => e.exitCode === -1) ?? null,
      'the controller to record the run',
    );
    expect(unreported).toMatchObject({ status: 'failed', exitCode: -1 });
    const full = (await service.request('GET', `/api/executions/${unreported.id}`)).body;
    expect(full.stderr).toContain('the run ended without reporting its outcome: BackoffLimitExceeded');
  }, 60_000);

  it('refuses a report sent with another job’s token that names a run the controller saw (409)', async () => {
    const { id } = (await findJobForResource(db.pool, NAMESPACE, 'loop'))!;
    const other = (
      await service.request('POST', '/api/jobs', { name: 'bystander', schedule: '@daily', command: 'true' })
    ).body.id as number;
    const { job } = fire(yearly.firedAt(2));
    const runUid = job.metadata.uid as string;
    await until(
      async () =>
        (
          await db.pool.query(
            'SELECT 1 FROM cluster_runs WHERE run_uid = $1 AND job_id = $2 AND seen_by_controller',
            [runUid, id],
          )
        ).rowCount === 1,
      'the controller to see the run',
    );
    const forged = await service.request(
      'POST',
      `/api/jobs/${other}/reports`,
      {
        podUid: 'not-the-pod',
        runUid,
        attempt: 0,
        final: true,
        status: 'success',
        exitCode: 0,
        startedAt: new Date().toISOString(),
        finishedAt: new Date().toISOString(),
      },
      { authorization: `Bearer ${reportTokenFor(REPORT_SECRET, other)}` },
    );
    expect(forged).toMatchObject({
      status: 409,
      body: { error: `run ${runUid} is a run of another job, not of job ${other}` },
    });
    expect(await executions(other)).toEqual([]);
  }, 60_000);
});
