import type { Database } from '../../src/store/database';
import { findJobForResource } from '../../src/store/resourceJobs';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { runPod } from '../support/kube/kubelet';
import { startTestService, type TestService } from '../support/service';
import {
  createScheduledJob,
  NAMESPACE,
  recentYearlyFire,
  REPORT_SECRET,
  runController,
  startCluster,
  until,
} from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A ScheduledJob with `spec.image`: the pod runs the runner as a native sidecar (`crondeck run
 * --supervise`) and the command in the job's own image, which needs only /bin/sh. The stand-in
 * kubelet runs both containers as real processes sharing the pod's emptyDir.
 */
describe('the full loop with the command in an image of the user’s', () => {
  let emu: KubeEmulator;
  let db: Database;
  let service: TestService;
  let stopController: () => Promise<void>;
  const yearly = recentYearlyFire();

  beforeAll(async () => {
    const cluster = await startCluster();
    emu = cluster.emu;
    db = await createTestDatabase();
    service = await startTestService({ db, env: { SERVICE_REPORT_SECRET: REPORT_SECRET } });
    const controller = await runController(cluster.kc, db, { reportUrl: service.url });
    stopController = () => controller.stop();
    await createScheduledJob(cluster.kc, 'in-image', {
      schedule: yearly.schedule,
      timeZone: 'UTC',
      image: 'docker.io/library/busybox:1.36',
      command: 'echo "attempt $CRONDECK_ATTEMPT of $CRONDECK_JOB_NAME in $GREETING"; exit 4',
      env: [{ name: 'GREETING', value: 'the job image' }],
      retry: { maxAttempts: 1, baseDelay: 0 },
    });
    await until(() => emu.objects('cronjobs', NAMESPACE).length === 1, 'the CronJob');
  }, 60_000);
  afterAll(async () => {
    await stopController();
    await service.stop();
    await emu.stop();
    await db.close();
  });

  it('runs every attempt in the job container and records what the runner reports', async () => {
    const { id } = (await findJobForResource(db.pool, NAMESPACE, 'in-image'))!;
    const job = emu.fireCronJob(NAMESPACE, 'in-image', yearly.firedAt());
    emu.syncJob(NAMESPACE, job.metadata.name);
    const pod = emu
      .objects('pods', NAMESPACE)
      .find((p: Obj) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid)!;
    expect(pod.spec.initContainers[0]).toMatchObject({
      restartPolicy: 'Always',
      command: ['crondeck', 'run', '--supervise'],
    });
    expect(pod.spec.containers[0].image).toBe('docker.io/library/busybox:1.36');

    // The pod's phase follows the job container, which exits with the run's code.
    expect(await runPod(emu, NAMESPACE, pod.metadata.name)).toBe(4);

    const executions = async () =>
      (await service.request('GET', `/api/executions?jobId=${id}`)).body as Obj[];
    const recorded = await until(
      async () => ((await executions()).length === 2 ? executions() : null),
      'both attempts',
    );
    expect(recorded.map((e) => [e.attempt, e.status, e.exitCode])).toEqual([
      [1, 'failed', 4],
      [0, 'failed', 4],
    ]);
    const full = (await service.request('GET', `/api/executions/${recorded[1]!.id}`)).body;
    expect(full.stdout).toBe('attempt 0 of in-image in the job image\n');
  }, 60_000);
});
