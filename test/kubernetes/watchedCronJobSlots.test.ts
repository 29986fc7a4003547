import { BatchV1Api } from '@kubernetes/client-node';
import type { Database } from '../../src/store/database';
import { findWatchedJob } from '../../src/store/watchedCronJobJobs';
import { Receiver } from '../alerts/support/receiver';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { runPod } from '../support/kube/kubelet';
import { startTestService, type TestService } from '../support/service';
import { NAMESPACE, runController, startCluster, until } from './cluster';
import { createCronJob, createCronJobWatch, plainCronJob } from './watchedCronJobsSupport';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Issue 40: the slot ledger of a watched CronJob. Every fire time of its schedule is judged as a
 * ScheduledJob's are: ran (from its Job), missed with why (no Job came; the CronJob was suspended,
 * which for a CronJob someone else owns is a missed slot, not a choice), skipped (concurrencyPolicy
 * Forbid while a run went on); a missed slot alerts the selection's destinations. One clock for
 * the cluster, the controller and the service; the test judges when it says.
 */
describe('the slot ledger of a watched CronJob', () => {
  const clock = new ManualClock('2026-06-01T10:30:00Z');
  let emu: KubeEmulator;
  let kc: Parameters<typeof runController>[0];
  let db: Database;
  let service: TestService;
  let receiver: Receiver;
  let controller: Awaited<ReturnType<typeof runController>>;
  let jobId: number;

  beforeAll(async () => {
    ({ emu, kc } = await startCluster({ now: () => clock.now() }));
    db = await createTestDatabase();
    receiver = await Receiver.start();
    service = await startTestService({ db, clock, alerting: { pollIntervalMs: 50 } });
    controller = await runController(kc, db, { clock });
    await createCronJob(
      kc,
      plainCronJob('hourly', {
        labels: { team: 'data' },
        schedule: '0 * * * *',
        spec: { timeZone: 'UTC', concurrencyPolicy: 'Forbid' },
      }),
    );
    await createCronJobWatch(kc, 'data-team', {
      selector: { matchLabels: { team: 'data' } },
      webhooks: [{ url: `${receiver.url}/hook`, events: ['missed'] }],
      lateAfterSeconds: 30,
    });
    jobId = await until(async () => (await findWatchedJob(db.pool, NAMESPACE, 'hourly'))?.id, 'the job row');
  }, 60_000);
  afterAll(async () => {
    await controller.stop();
    await service.stop();
    await receiver.close();
    await emu.stop();
    await db.close();
  });

  const slots = async () =>
    ((await service.request('GET', `/api/jobs/${jobId}/slots`)).body as Obj[]).reverse();
  const judgeAt = (time: string) => service.judge.judge(clock.set(time));
  const executions = async () =>
    (await service.request('GET', `/api/executions?jobId=${jobId}`)).body as Obj[];
  const podOf = (job: Obj) =>
    emu.objects('pods', NAMESPACE).find((p) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid)!;

  it('judges a slot whose Job ran `ran`, and one that saw no Job `missed`, alerting it', async () => {
    clock.set('2026-06-01T11:00:05Z');
    const job = emu.fireCronJob(NAMESPACE, 'hourly', new Date('2026-06-01T11:00:00Z'));
    emu.syncJob(NAMESPACE, job.metadata.name);
    expect(await runPod(emu, NAMESPACE, podOf(job).metadata.name)).toBe(0);
    emu.syncJob(NAMESPACE, job.metadata.name);
    await until(async () => (await executions()).length === 1, 'the run recorded');

    // The selection's grace (30 s): judged once it has passed, not before.
    await judgeAt('2026-06-01T12:00:29Z');
    expect((await slots()).map((slot) => slot.scheduledAt)).toEqual(['2026-06-01T11:00:00.000Z']);
    await judgeAt('2026-06-01T12:00:30Z');
    expect((await slots()).map((slot) => slot.scheduledAt)).toEqual([
      '2026-06-01T11:00:00.000Z',
      '2026-06-01T12:00:00.000Z',
    ]);
    const judged = await slots();
    expect(judged.map((slot) => [slot.scheduledAt, slot.outcome])).toEqual([
      ['2026-06-01T11:00:00.000Z', 'ran'],
      ['2026-06-01T12:00:00.000Z', 'missed'],
    ]);
    // Backfill is not offered here: a service without the cluster cannot start the CronJob's Jobs
    // (and on one, only where the CronJobWatch allows it: watchedCronJobActions.test.ts).
    const backfill = await service.request('POST', `/api/jobs/${jobId}/backfill`, {
      from: '2026-06-01T12:00:00Z',
      to: '2026-06-01T12:00:00Z',
    });
    expect(backfill.status).toBe(409);
    expect((backfill.body as Obj).error).toContain('only Crondeck on its cluster can backfill it');
    expect(judged[1]!.reason).toMatch(
      /^the CronJob created no Job for it: the CronJob controller skipped it/,
    );
    const [alert] = await until(
      () => (receiver.to('/hook').length === 1 ? receiver.to('/hook') : null),
      'the alert',
    );
    expect(alert!.json).toMatchObject({ event: 'missed', job: { id: jobId } });
  }, 60_000);

  it('judges the slots of a suspended CronJob `missed`, saying it was suspended', async () => {
    clock.set('2026-06-01T12:30:00Z');
    await kc.makeApiClient(BatchV1Api).patchNamespacedCronJob({
      namespace: NAMESPACE,
      name: 'hourly',
      body: [{ op: 'add', path: '/spec/suspend', value: true }],
    });
    await until(
      async () => (await findWatchedJob(db.pool, NAMESPACE, 'hourly'))?.enabled === false,
      'mirrored',
    );
    await judgeAt('2026-06-01T13:02:00Z');
    const [suspended] = (await slots()).slice(2);
    expect(suspended).toMatchObject({
      scheduledAt: '2026-06-01T13:00:00.000Z',
      outcome: 'missed',
      reason: 'the CronJob was suspended (spec.suspend: true)',
    });
    await until(() => receiver.to('/hook').length === 2, 'the second alert');
  }, 60_000);

  it('judges a fire time a Forbid CronJob skipped while its run went on `skipped`', async () => {
    clock.set('2026-06-01T13:30:00Z');
    await kc.makeApiClient(BatchV1Api).patchNamespacedCronJob({
      namespace: NAMESPACE,
      name: 'hourly',
      body: [{ op: 'replace', path: '/spec/suspend', value: false }],
    });
    await until(
      async () => (await findWatchedJob(db.pool, NAMESPACE, 'hourly'))?.enabled === true,
      'mirrored',
    );
    clock.set('2026-06-01T14:00:05Z');
    const long = emu.fireCronJob(NAMESPACE, 'hourly', new Date('2026-06-01T14:00:00Z'));
    emu.syncJob(NAMESPACE, long.metadata.name);
    // It runs past 15:00, which Forbid skips; it ends at 15:10.
    clock.set('2026-06-01T15:10:00Z');
    expect(await runPod(emu, NAMESPACE, podOf(long).metadata.name)).toBe(0);
    emu.syncJob(NAMESPACE, long.metadata.name);
    await until(async () => (await executions()).length === 3, 'the run and the skipped fire time');
    await judgeAt('2026-06-01T15:12:00Z');
    expect((await slots()).slice(3).map((slot) => [slot.scheduledAt, slot.outcome, slot.reason])).toEqual([
      ['2026-06-01T14:00:00.000Z', 'ran', null],
      ['2026-06-01T15:00:00.000Z', 'skipped', 'the previous run of this job was still in progress'],
    ]);
  }, 60_000);
});
