import type { Database } from '../../src/store/database';
import { findJobForResource } from '../../src/store/resourceJobs';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { runPod } from '../support/kube/kubelet';
import { startTestService, type TestService } from '../support/service';
import {
  createScheduledJob,
  NAMESPACE,
  REPORT_SECRET,
  runController,
  startCluster,
  until,
  untilSettled,
} from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MINUTE = 60_000;

/**
 * Fire times as the cluster's CronJob controller decides them: the emulator plays its sync at a
 * clock the test moves on by whole minutes, so the schedule, not the test, says when a Job is made.
 * Under the default `concurrencyPolicy: Forbid` a fire time that comes while the previous run is
 * active makes no Job; once that run ends, the controller starts the most recent missed one late.
 * Crondeck records the others as `skipped`, once each, and the late one as a run.
 */
describe('scheduled fires on the emulated cluster', () => {
  let emu: KubeEmulator;
  let db: Database;
  let service: TestService;
  let controller: Awaited<ReturnType<typeof runController>>;
  // The cluster's clock runs with real time, moved on by `advance`; it starts 10 s past a minute.
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const advance = (ms: number) => (offsetMs += ms);

  beforeAll(async () => {
    const start = Math.floor(Date.now() / MINUTE) * MINUTE + 10_000;
    offsetMs = start - Date.now();
    const cluster = await startCluster({ now: clock.now });
    emu = cluster.emu;
    db = await createTestDatabase();
    service = await startTestService({ db, env: { SERVICE_REPORT_SECRET: REPORT_SECRET } });
    controller = await runController(cluster.kc, db, {
      reportUrl: service.url,
      clock,
      reportGraceMs: 500,
    });
    await createScheduledJob(cluster.kc, 'minutely', {
      schedule: '* * * * *',
      timeZone: 'UTC',
      command: 'echo tick',
    });
    await until(() => emu.objects('cronjobs', NAMESPACE).length === 1, 'the CronJob');
  }, 60_000);
  afterAll(async () => {
    await controller?.stop();
    await service.stop();
    await emu.stop();
    await db.close();
  });

  const jobs = () => emu.objects('jobs', NAMESPACE).map((job) => job.metadata.name as string);
  const executions = async (jobId: number) =>
    (await service.request('GET', `/api/executions?jobId=${jobId}`)).body as Obj[];
  const podOf = (job: Obj) =>
    emu.objects('pods', NAMESPACE).find((p) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid)!;

  it('fires on the schedule, records a fire time that came during a run as skipped, and the late start as a run', async () => {
    const { id } = (await findJobForResource(db.pool, NAMESPACE, 'minutely'))!;
    expect(emu.syncCronJob(NAMESPACE, 'minutely')).toBeNull(); // no fire time since its creation

    // The next minute: the CronJob controller fires.
    advance(MINUTE);
    const firstFire = new Date(Math.floor(clock.now().getTime() / MINUTE) * MINUTE);
    const first = emu.syncCronJob(NAMESPACE, 'minutely')!;
    expect(first.metadata.name).toBe(`minutely-${firstFire.getTime() / MINUTE}`);
    emu.syncJob(NAMESPACE, first.metadata.name);

    // Two more fire times while that run is active: Forbid starts nothing.
    advance(MINUTE);
    expect(emu.syncCronJob(NAMESPACE, 'minutely')).toBeNull();
    advance(MINUTE);
    expect(emu.syncCronJob(NAMESPACE, 'minutely')).toBeNull();
    expect(jobs()).toEqual([first.metadata.name]);

    // The run ends; the CronJob controller starts the most recent missed fire time late.
    expect(await runPod(emu, NAMESPACE, podOf(first).metadata.name)).toBe(0);
    emu.syncJob(NAMESPACE, first.metadata.name);
    const late = emu.syncCronJob(NAMESPACE, 'minutely')!;
    const lateFire = new Date(firstFire.getTime() + 2 * MINUTE);
    expect(late.metadata.name).toBe(`minutely-${lateFire.getTime() / MINUTE}`);
    emu.syncJob(NAMESPACE, late.metadata.name);
    expect(await runPod(emu, NAMESPACE, podOf(late).metadata.name)).toBe(0);
    emu.syncJob(NAMESPACE, late.metadata.name);

    const recorded = await until(async () => {
      const rows = await executions(id);
      return rows.length === 3 ? rows : null;
    }, 'two runs and one skipped fire time');
    const skipped = recorded.filter((e) => e.status === 'skipped');
    expect(skipped).toHaveLength(1);
    expect(new Date(skipped[0]!.startedAt)).toEqual(new Date(firstFire.getTime() + MINUTE));
    expect(recorded.filter((e) => e.status === 'success')).toHaveLength(2);
    // Each names its slot of the ledger: the skipped one is judged skipped, the late start is its slot's run.
    expect(recorded.map((e) => [e.scheduledAt, e.status]).sort()).toEqual([
      [firstFire.toISOString(), 'success'],
      [new Date(firstFire.getTime() + MINUTE).toISOString(), 'skipped'],
      [lateFire.toISOString(), 'success'],
    ]);

    // Later passes of the controller (the grace has passed for both Jobs) add nothing.
    await untilSettled(controller, first);
    await untilSettled(controller, late);
    expect(await executions(id)).toHaveLength(3);
  }, 60_000);
});
