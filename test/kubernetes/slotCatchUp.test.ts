import { BatchV1Api } from '@kubernetes/client-node';
import { createScheduledJob, NAMESPACE, until } from './cluster';
import { findWatchedJob } from '../../src/store/watchedCronJobJobs';
import { MINUTE, minutesAgo, nextMinute, SlotCluster } from './slotCluster';
import { createCronJob, createCronJobWatch, plainCronJob } from './watchedCronJobsSupport';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const finished = (job: Obj) =>
  ((job.status?.conditions ?? []) as Obj[]).some(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );

/**
 * Runs of slots the CronJob controller did not make, on the emulated cluster: the controller
 * creates their Jobs from the CronJob's template (a catch-up when it takes the lead after being
 * down, a backfill when the API asks for one), and each pod's runner runs its slot.
 */
describe('catch-up and backfill on the emulated cluster', () => {
  let cluster: SlotCluster;

  beforeAll(async () => {
    cluster = await SlotCluster.start(minutesAgo(20));
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  const GRACE_S = 10;
  const minutesOf = (slot: Date) => slot.getTime() / MINUTE;
  const named = (name: string) => (job: Obj) => job.metadata.name === name;

  it('catches up the latest missed slot, or each up to maxRuns one at a time, once the controller is back', async () => {
    const spec = {
      schedule: '* * * * *',
      timeZone: 'UTC',
      command: 'echo "$CRONDECK_SCHEDULED_TIME"',
      lateAfterSeconds: GRACE_S,
    };
    await createScheduledJob(cluster.kc, 'latest', { ...spec, catchUp: { policy: 'latest' } });
    await createScheduledJob(cluster.kc, 'every', { ...spec, catchUp: { policy: 'all', maxRuns: 2 } });
    const latestId = await cluster.jobIdOf('latest');
    const everyId = await cluster.jobIdOf('every');

    // The controller goes down, and its CronJobs are deleted meanwhile: no Job is made for three slots.
    await cluster.stopTheController();
    const batch = cluster.kc.makeApiClient(BatchV1Api);
    for (const name of ['latest', 'every'])
      await batch.deleteNamespacedCronJob({ name, namespace: NAMESPACE });
    const first = nextMinute(cluster.clock.now());
    const [s1, s2, s3] = [0, 1, 2].map((k) => new Date(first.getTime() + k * MINUTE)) as [Date, Date, Date];
    cluster.clock.set(new Date(s3.getTime() + 30_000));

    // Back, it makes the CronJobs again, and the catch-up Jobs.
    await cluster.startController();
    const latestRun = await until(
      () => cluster.jobsOf('latest').find(named(`latest-${minutesOf(s3)}-catchup`)),
      'the catch-up Job of the latest missed slot',
    );
    const everyFirst = await until(
      () => cluster.jobsOf('every').find(named(`every-${minutesOf(s2)}-catchup`)),
      'the first catch-up Job of policy all',
    );
    expect(latestRun.metadata.annotations).toMatchObject({
      'crondeck.dev/scheduled-time': s3.toISOString(),
      'crondeck.dev/trigger': 'catchUp',
    });
    // One run of a job at a time: the next catch-up waits for this one to end.
    await cluster.untilSlotRunnerLooked();
    expect(cluster.jobsOf('every').map((job) => job.metadata.name)).toEqual([everyFirst.metadata.name]);
    expect(cluster.jobsOf('latest').map((job) => job.metadata.name)).toEqual([latestRun.metadata.name]);

    expect(await cluster.runJob(latestRun)).toBe(0);
    expect(await cluster.runJob(everyFirst)).toBe(0);
    const everySecond = await until(
      () => cluster.jobsOf('every').find(named(`every-${minutesOf(s3)}-catchup`)),
      'the second catch-up Job of policy all',
    );
    expect(await cluster.runJob(everySecond)).toBe(0);

    const [caughtUp] = await cluster.waitForExecutions(latestId, 1);
    expect(caughtUp).toMatchObject({
      scheduledAt: s3.toISOString(),
      trigger: 'catchUp',
      stdout: `${s3.toISOString()}\n`,
    });
    const every = await cluster.waitForExecutions(everyId, 2);
    expect(every.map((e) => [e.scheduledAt, e.trigger, e.stdout])).toEqual([
      [s2.toISOString(), 'catchUp', `${s2.toISOString()}\n`],
      [s3.toISOString(), 'catchUp', `${s3.toISOString()}\n`],
    ]);

    const outcomes = async (jobId: number) =>
      (await cluster.judgedSlots(jobId, cluster.clock.now())).map((slot) => [slot.scheduledAt, slot.outcome]);
    expect(await outcomes(latestId)).toEqual([
      [s1.toISOString(), 'missed'],
      [s2.toISOString(), 'missed'],
      [s3.toISOString(), 'late'],
    ]);
    expect(await outcomes(everyId)).toEqual([
      [s1.toISOString(), 'missed'],
      [s2.toISOString(), 'late'],
      [s3.toISOString(), 'late'],
    ]);
    // Each late slot names the run that caught it up, with that run's start.
    const lateSlots = async (jobId: number) =>
      (await cluster.judgedSlots(jobId, cluster.clock.now()))
        .filter((slot) => slot.outcome === 'late')
        .map((slot) => [slot.executionIds, slot.startedAt === null]);
    expect(await lateSlots(latestId)).toEqual([[[caughtUp!.id], false]]);
    expect(await lateSlots(everyId)).toEqual(every.map((execution) => [[execution.id], false]));
  }, 90_000);

  it('catches up a watched CronJob only where its CronJobWatch asks for it, from the CronJob’s template', async () => {
    const plain = (name: string, label: string) =>
      plainCronJob(name, {
        labels: { catchup: label },
        schedule: '* * * * *',
        command: 'echo caught up',
        spec: { timeZone: 'UTC' },
      });
    await createCronJob(cluster.kc, plain('plain-latest', 'latest'));
    await createCronJob(cluster.kc, plain('plain-never', 'never'));
    await createCronJobWatch(cluster.kc, 'catching-up', {
      selector: { matchLabels: { catchup: 'latest' } },
      catchUp: { policy: 'latest' },
      lateAfterSeconds: GRACE_S,
    });
    await createCronJobWatch(cluster.kc, 'not-catching-up', {
      selector: { matchLabels: { catchup: 'never' } },
      lateAfterSeconds: GRACE_S,
    });
    const rowOf = (name: string) =>
      until(async () => (await findWatchedJob(cluster.db.pool, NAMESPACE, name))?.id, `the job of ${name}`);
    const latestId = await rowOf('plain-latest');
    await rowOf('plain-never');
    await until(
      async () =>
        (await findWatchedJob(cluster.db.pool, NAMESPACE, 'plain-latest'))?.catchUp?.policy === 'latest',
      'the catch-up policy mirrored',
    );

    // Nothing fires them for three slots while the controller is down.
    await cluster.stopTheController();
    const first = nextMinute(cluster.clock.now());
    const s3 = new Date(first.getTime() + 2 * MINUTE);
    cluster.clock.set(new Date(s3.getTime() + 30_000));
    await cluster.startController();
    const run = await until(
      () => cluster.jobsOf('plain-latest').find(named(`plain-latest-${minutesOf(s3)}-catchup`)),
      'the catch-up Job of the watched CronJob',
    );
    expect(run.metadata.annotations).toMatchObject({ 'crondeck.dev/trigger': 'catchUp' });
    expect(run.spec.template.spec.containers[0].command).toEqual(['sh', '-c', 'echo caught up']);
    await cluster.untilSlotRunnerLooked();
    expect(cluster.jobsOf('plain-never')).toEqual([]);

    expect(await cluster.runJob(run)).toBe(0);
    const [caughtUp] = await cluster.waitForExecutions(latestId, 1);
    expect(caughtUp).toMatchObject({ scheduledAt: s3.toISOString(), trigger: 'catchUp', status: 'success' });
  }, 90_000);

  it('backfills a range, each slot once, at most `concurrency` Jobs at a time', async () => {
    await createScheduledJob(cluster.kc, 'history', {
      schedule: '* * * * *',
      timeZone: 'UTC',
      command: 'echo "$CRONDECK_SCHEDULED_TIME"',
    });
    const jobId = await cluster.jobIdOf('history');
    const from = nextMinute(cluster.clock.now());
    const slots = [0, 1, 2, 3].map((k) => new Date(from.getTime() + k * MINUTE));
    cluster.clock.set(new Date(slots[3]!.getTime() + 5000));

    const asked = await cluster.request('POST', `/api/jobs/${jobId}/backfill`, {
      from: from.toISOString(),
      to: slots[3]!.toISOString(),
      concurrency: 2,
    });
    expect(asked).toMatchObject({ status: 202, body: { slots: 4 } });
    // The slot of every backfill Job seen: the CronJob controller deletes the oldest finished ones.
    const made = new Map<string, string>();
    const backfillJobs = () => {
      const jobs = cluster
        .jobsOf('history')
        .filter((job) => job.metadata.labels?.['crondeck.dev/backfill-id'])
        .sort((a, b) => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp));
      for (const job of jobs)
        made.set(job.metadata.name, job.metadata.annotations['crondeck.dev/scheduled-time']);
      return jobs;
    };
    const going = () => backfillJobs().filter((job) => !finished(job));

    await until(() => backfillJobs().length === 2, 'the first two backfill Jobs');
    // Two at a time: the third waits for one of them to end.
    await cluster.untilSlotRunnerLooked();
    expect(backfillJobs()).toHaveLength(2);
    // Oldest first, one Job per slot, each running its slot until all four have run.
    for (let ran = 0; ran < 4; ran++) {
      await until(() => backfillJobs().length === Math.min(4, ran + 2), `backfill Job ${ran + 2}`);
      expect(going().length).toBeLessThanOrEqual(2);
      expect(await cluster.runJob(going()[0]!)).toBe(0);
    }
    expect([...made.values()].sort()).toEqual(slots.map((slot) => slot.toISOString()));
    // The CronJob controls the backfill Jobs too: it keeps successfulJobsHistoryLimit (3) of them.
    expect(backfillJobs().map((job) => job.metadata.annotations['crondeck.dev/scheduled-time'])).toEqual(
      slots.slice(1).map((slot) => slot.toISOString()),
    );

    const executions = await cluster.waitForExecutions(jobId, 4);
    expect(executions.map((e) => [e.scheduledAt, e.trigger, e.stdout]).sort()).toEqual(
      slots.map((slot) => [slot.toISOString(), 'backfill', `${slot.toISOString()}\n`]),
    );
    // Done: the job may be backfilled again.
    await until(
      async () =>
        (
          await cluster.request('POST', `/api/jobs/${jobId}/backfill`, {
            from: from.toISOString(),
            to: from.toISOString(),
          })
        ).status === 202,
      'the backfill to be finished',
    );
  }, 90_000);

  it('goes on with a backfill where it stood after the controller restarts, and stops it when the job is disabled', async () => {
    await createScheduledJob(cluster.kc, 'resumed', {
      schedule: '* * * * *',
      timeZone: 'UTC',
      command: 'true',
    });
    const jobId = await cluster.jobIdOf('resumed');
    const from = nextMinute(cluster.clock.now());
    const to = new Date(from.getTime() + 2 * MINUTE);
    cluster.clock.set(new Date(to.getTime() + 5000));
    const asked = await cluster.request('POST', `/api/jobs/${jobId}/backfill`, {
      from: from.toISOString(),
      to: to.toISOString(),
    });
    expect(asked).toMatchObject({ status: 202, body: { slots: 3 } });
    const backfillJobs = () =>
      cluster.jobsOf('resumed').filter((job) => job.metadata.labels?.['crondeck.dev/backfill-id']);
    const first = await until(() => backfillJobs()[0], 'the first backfill Job');

    // Another controller takes over while the first run is going: it neither makes it again nor
    // starts the next one beside it.
    await cluster.stopTheController();
    await cluster.startController();
    await cluster.untilSlotRunnerLooked();
    expect(backfillJobs().map((job) => job.metadata.name)).toEqual([first.metadata.name]);
    expect(await cluster.runJob(first)).toBe(0);
    const second = await until(
      () => backfillJobs().find((job) => job.metadata.name !== first.metadata.name),
      'the second backfill Job',
    );
    expect(second.metadata.annotations['crondeck.dev/scheduled-time']).toBe(
      new Date(from.getTime() + MINUTE).toISOString(),
    );

    // Switched off, the job runs no more of it: the backfill ends with its third slot not run.
    expect((await cluster.request('PATCH', `/api/jobs/${jobId}/toggle`, { enabled: false })).status).toBe(
      200,
    );
    expect(await cluster.runJob(second)).toBe(0);
    const ended = async () =>
      (
        await cluster.db.pool.query(
          'SELECT 1 FROM slot_backfills WHERE job_id = $1 AND finished_at IS NOT NULL',
          [jobId],
        )
      ).rowCount === 1;
    await until(ended, 'the backfill to end');
    expect(backfillJobs()).toHaveLength(2);
  }, 90_000);
});
