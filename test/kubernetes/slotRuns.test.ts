import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchV1Api } from '@kubernetes/client-node';
import { slotRunJob } from '../../src/kube/resources/slotRunJob';
import { failPodBeforeStart } from '../support/kube/kubelet';
import { createScheduledJob, NAMESPACE, until } from './cluster';
import { MINUTE, minutesAgo, nextMinute, SlotCluster } from './slotCluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Runs on the emulated cluster name their slots: a Job the CronJob controller made is
 * `<cronjob>-<minutes>`, its pod's runner reads that from the Job name, claims the slot, hands it
 * to the command and reports it; a second Job for one slot runs nothing (unless the job allows
 * duplicate slots); and the judge of `crondeck serve` in Kubernetes mode gives each slot its
 * outcome, `missed` for one the cluster made no Job for.
 */
describe('the slot ledger of runs on the emulated cluster', () => {
  let cluster: SlotCluster;
  let dir: string;

  beforeAll(async () => {
    cluster = await SlotCluster.start(minutesAgo(20));
    dir = mkdtempSync(join(tmpdir(), 'crondeck-slots-'));
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const GRACE_S = 30;
  /** Moves the cluster's clock to the next minute and plays the CronJob controller's sync there. */
  const fireNext = (name: string): { slot: Date; job: Obj } => {
    const slot = nextMinute(cluster.clock.now());
    cluster.clock.set(new Date(slot.getTime() + 1000));
    const job = cluster.emu.syncCronJob(NAMESPACE, name);
    if (!job) throw new Error(`the CronJob controller made no Job for ${name}`);
    return { slot, job };
  };
  const afterGrace = (slot: Date) => cluster.clock.set(new Date(slot.getTime() + (GRACE_S + 1) * 1000));
  const marker = (name: string) => join(dir, name);
  const linesOf = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);

  it.each([
    ['Crondeck’s image', 'named', {}],
    [
      'an image of the user’s (the runner as a sidecar)',
      'named-image',
      { image: 'docker.io/library/busybox:1.36' },
    ],
  ])(
    'records a scheduled run in %s with its slot, which its command sees, and judges the slot ran',
    async (_how, name, extra) => {
      await createScheduledJob(cluster.kc, name, {
        schedule: '* * * * *',
        timeZone: 'UTC',
        command: 'echo "slot=$CRONDECK_SCHEDULED_TIME"',
        lateAfterSeconds: GRACE_S,
        ...extra,
      });
      const jobId = await cluster.jobIdOf(name);
      const { slot, job } = fireNext(name);
      expect(job.metadata.name).toBe(`${name}-${slot.getTime() / MINUTE}`);
      expect(await cluster.runJob(job)).toBe(0);

      const execution = (await cluster.waitForExecutions(jobId, 1))[0]!;
      expect(execution).toMatchObject({
        status: 'success',
        scheduledAt: slot.toISOString(),
        trigger: 'schedule',
        stdout: `slot=${slot.toISOString()}\n`,
      });
      expect(await cluster.judgedSlots(jobId, afterGrace(slot))).toEqual([
        expect.objectContaining({
          scheduledAt: slot.toISOString(),
          outcome: 'ran',
          executionIds: [execution.id],
          reason: null,
        }),
      ]);
    },
    60_000,
  );

  it('records a run whose pod never reported with the slot its Job was for', async () => {
    await createScheduledJob(cluster.kc, 'unstarted', {
      schedule: '* * * * *',
      timeZone: 'UTC',
      command: 'true',
      lateAfterSeconds: GRACE_S,
    });
    const jobId = await cluster.jobIdOf('unstarted');
    const { slot, job } = fireNext('unstarted');
    cluster.emu.syncJob(NAMESPACE, job.metadata.name);
    const pod = cluster.emu
      .objects('pods', NAMESPACE)
      .find((p) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid)!;
    await failPodBeforeStart(cluster.emu, NAMESPACE, pod.metadata.name);
    cluster.emu.syncJob(NAMESPACE, job.metadata.name);

    const recorded = (await cluster.waitForExecutions(jobId, 1))[0]!;
    expect(recorded).toMatchObject({
      status: 'failed',
      exitCode: -1,
      scheduledAt: slot.toISOString(),
      trigger: 'schedule',
    });
    expect(await cluster.judgedSlots(jobId, afterGrace(slot))).toEqual([
      expect.objectContaining({
        scheduledAt: slot.toISOString(),
        outcome: 'ran',
        executionIds: [recorded.id],
      }),
    ]);
  }, 60_000);

  it('judges a run longer than its grace ran on its claim, and names its execution once it reports', async () => {
    const [started, release] = [marker('long-started'), marker('long-release')];
    await createScheduledJob(cluster.kc, 'long', {
      schedule: '* * * * *',
      timeZone: 'UTC',
      command: `touch ${started}; while [ ! -e ${release} ]; do sleep 0.1; done; echo released`,
      lateAfterSeconds: GRACE_S,
    });
    const jobId = await cluster.jobIdOf('long');
    const { slot, job } = fireNext('long');
    const exitCode = cluster.runJob(job);
    // Its runner has claimed the slot and started the command, which waits past the grace.
    await until(() => existsSync(started), 'the command started');
    const claimed = await cluster.judgedSlots(jobId, afterGrace(slot));
    expect(claimed).toEqual([
      expect.objectContaining({
        scheduledAt: slot.toISOString(),
        outcome: 'ran',
        executionIds: [],
        reason: null,
      }),
    ]);

    writeFileSync(release, '');
    expect(await exitCode).toBe(0);
    const [run] = await cluster.waitForExecutions(jobId, 1);
    expect(run).toMatchObject({ status: 'success', scheduledAt: slot.toISOString(), stdout: 'released\n' });
    // The judgement stands; the slot now names its run.
    expect(await cluster.judgedSlots(jobId, cluster.clock.now())).toEqual([
      { ...claimed[0], executionIds: [run!.id] },
    ]);
  }, 60_000);

  /** A second Job for the slot of `first`, as a catch-up racing the CronJob's own Job would make it. */
  async function secondJobFor(name: string, slot: Date): Promise<Obj> {
    const cronJob = cluster.emu.objects('cronjobs', NAMESPACE).find((c) => c.metadata.name === name)!;
    return (await cluster.kc.makeApiClient(BatchV1Api).createNamespacedJob({
      namespace: NAMESPACE,
      body: slotRunJob(cronJob, { slot, trigger: 'catchUp' }),
    })) as Obj;
  }

  it('runs the command once when a second Job comes for the slot: the slot ran, its reason names the prevented run', async () => {
    await createScheduledJob(cluster.kc, 'once', {
      schedule: '* * * * *',
      timeZone: 'UTC',
      command: `echo "$CRONDECK_SCHEDULED_TIME" >> ${marker('once')}`,
      lateAfterSeconds: GRACE_S,
    });
    const jobId = await cluster.jobIdOf('once');
    const { slot, job: first } = fireNext('once');
    const second = await secondJobFor('once', slot);

    expect(await cluster.runJob(first)).toBe(0);
    // The second claimant is refused its slot: it ends well, without running the command.
    expect(await cluster.runJob(second)).toBe(0);
    expect(linesOf(marker('once'))).toEqual([slot.toISOString()]);

    const execution = (await cluster.waitForExecutions(jobId, 1))[0]!;
    expect(execution).toMatchObject({ scheduledAt: slot.toISOString(), status: 'success' });
    // Nor does the controller record the second Job as a run that never reported.
    await cluster.untilSettledByController(second);
    expect(await cluster.executions(jobId)).toHaveLength(1);

    expect(await cluster.judgedSlots(jobId, afterGrace(slot))).toEqual([
      expect.objectContaining({
        scheduledAt: slot.toISOString(),
        outcome: 'ran',
        executionIds: [execution.id],
        reason: `a second run for this slot was prevented (run ${second.metadata.uid})`,
      }),
    ]);
  }, 60_000);

  it('runs both when the job allows duplicate slots, and judges the slot duplicate', async () => {
    await createScheduledJob(cluster.kc, 'twice', {
      schedule: '* * * * *',
      timeZone: 'UTC',
      command: `echo "$CRONDECK_SCHEDULED_TIME" >> ${marker('twice')}`,
      lateAfterSeconds: GRACE_S,
      allowDuplicateSlots: true,
    });
    const jobId = await cluster.jobIdOf('twice');
    const { slot, job: first } = fireNext('twice');
    const second = await secondJobFor('twice', slot);
    expect(await cluster.runJob(first)).toBe(0);
    expect(await cluster.runJob(second)).toBe(0);
    expect(linesOf(marker('twice'))).toEqual([slot.toISOString(), slot.toISOString()]);

    const executions = await cluster.waitForExecutions(jobId, 2);
    expect(executions.map((e) => e.scheduledAt)).toEqual([slot.toISOString(), slot.toISOString()]);
    expect(executions.map((e) => e.trigger).sort()).toEqual(['catchUp', 'schedule']);
    expect(await cluster.judgedSlots(jobId, afterGrace(slot))).toEqual([
      expect.objectContaining({
        scheduledAt: slot.toISOString(),
        outcome: 'duplicate',
        executionIds: executions.map((e) => e.id).sort((a, b) => a - b),
        reason: '2 runs started for this slot (the job allows duplicate slots)',
      }),
    ]);
  }, 60_000);

  it('turns a slot judged missed late when a Job for it runs after all, naming that run', async () => {
    await createScheduledJob(cluster.kc, 'tardy', {
      schedule: '* * * * *',
      timeZone: 'UTC',
      command: 'true',
      lateAfterSeconds: GRACE_S,
    });
    const jobId = await cluster.jobIdOf('tardy');
    // The CronJob controller is not played: no Job is made for the slot, which is judged missed.
    const slot = nextMinute(cluster.clock.now());
    expect(await cluster.judgedSlots(jobId, afterGrace(slot))).toEqual([
      expect.objectContaining({ scheduledAt: slot.toISOString(), outcome: 'missed', executionIds: [] }),
    ]);
    // A Job for it comes late: its runner claims the slot, runs, and reports when it ends.
    cluster.clock.set(new Date(slot.getTime() + 45_000));
    expect(await cluster.runJob(await secondJobFor('tardy', slot))).toBe(0);
    const [run] = await cluster.waitForExecutions(jobId, 1);
    expect(await cluster.judgedSlots(jobId, cluster.clock.now())).toEqual([
      {
        scheduledAt: slot.toISOString(),
        outcome: 'late',
        executionIds: [run!.id],
        startedAt: run!.startedAt,
        delayMs: Date.parse(run!.startedAt) - slot.getTime(),
        reason: 'judged missed, then a run for it started late',
      },
    ]);
  }, 60_000);

  it('judges a slot the cluster made no Job for missed, and those of a disabled job or a paused scheduler held', async () => {
    await createScheduledJob(cluster.kc, 'quiet', {
      schedule: '* * * * *',
      timeZone: 'UTC',
      command: 'true',
      lateAfterSeconds: GRACE_S,
    });
    const jobId = await cluster.jobIdOf('quiet');
    const at = (slot: Date, seconds: number) => cluster.clock.set(new Date(slot.getTime() + seconds * 1000));
    // The CronJob controller is not played: no Job is made for the first slot.
    const missed = nextMinute(cluster.clock.now());
    at(missed, 5);
    expect((await cluster.request('PATCH', `/api/jobs/${jobId}/toggle`, { enabled: false })).status).toBe(
      200,
    );
    await until(
      () => cluster.emu.objects('cronjobs', NAMESPACE).find((c) => c.metadata.name === 'quiet')?.spec.suspend,
      'the CronJob suspended',
    );
    const suspended = new Date(missed.getTime() + MINUTE);
    at(suspended, 5);
    expect((await cluster.request('PATCH', `/api/jobs/${jobId}/toggle`, { enabled: true })).status).toBe(200);
    at(suspended, 10);
    expect((await cluster.request('POST', '/api/scheduler/pause', {})).status).toBe(200);
    const paused = new Date(suspended.getTime() + MINUTE);
    at(paused, 5);
    expect((await cluster.request('POST', '/api/scheduler/resume')).status).toBe(200);

    expect(await cluster.judgedSlots(jobId, afterGrace(paused))).toEqual([
      expect.objectContaining({
        scheduledAt: missed.toISOString(),
        outcome: 'missed',
        reason: expect.stringMatching(/^the cluster created no Job for it/),
      }),
      expect.objectContaining({
        scheduledAt: suspended.toISOString(),
        outcome: 'suspended',
        reason: 'the job was disabled at that time',
      }),
      expect.objectContaining({
        scheduledAt: paused.toISOString(),
        outcome: 'paused',
        reason: 'the scheduler was paused at that time',
      }),
    ]);
  }, 60_000);
});
