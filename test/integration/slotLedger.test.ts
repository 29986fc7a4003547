import type { Database } from '../../src/store/database';
import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import { eventually, startTestService, type TestService } from '../support/service';
import type { SlotJson } from '../support/slotJson';

/**
 * The slot ledger through the API and the local runtime, with a hand-moved clock: each outcome made
 * to happen for real, and judged once its grace has passed.
 */
describe('the slot ledger on the local runtime', () => {
  let db: Database;
  let service: TestService;
  let clock: ManualClock;
  let attempts: ControlledAttempts;

  const start = () =>
    startTestService({ db, clock, local: { execute: attempts.run, sleep: async () => undefined } });

  beforeEach(async () => {
    db = await createTestDatabase();
    clock = new ManualClock('2026-06-01T10:00:30Z');
    attempts = new ControlledAttempts();
    service = await start();
  });
  afterEach(async () => {
    while (attempts.pending.length > 0) attempts.finishNext();
    await service.stop();
    await db.close();
  });

  async function createJob(body: Record<string, unknown>): Promise<{ id: number }> {
    const response = await service.request('POST', '/api/jobs', { command: 'true', ...body });
    expect(response.status).toBe(201);
    return response.body;
  }

  const slotsOf = async (jobId: number, query = ''): Promise<SlotJson[]> => {
    const response = await service.request('GET', `/api/jobs/${jobId}/slots${query}`);
    expect(response.status).toBe(200);
    return response.body;
  };
  /** Outcomes oldest first, as `HH:MM outcome`. */
  const outcomes = async (jobId: number) =>
    (await slotsOf(jobId)).reverse().map((slot) => `${slot.scheduledAt.slice(11, 16)} ${slot.outcome}`);

  /** Fires what is due at `time` and waits until what it started has begun. */
  const tickAt = (time: string) => service.local.tick(clock.set(time));
  const judgeAt = (time: string) => service.local.judgeSlots(clock.set(time));

  it('judges a slot ran once its grace has passed, with its run and delay, and not before', async () => {
    const job = await createJob({ name: 'on-time', schedule: '* * * * *' });
    await tickAt('2026-06-01T10:01:00Z');
    await attempts.waitForStarted(1);
    attempts.finishNext();
    await service.local.idle();
    // Within the grace (60 s) nothing is judged yet.
    expect(await judgeAt('2026-06-01T10:01:59.999Z')).toBe(0);
    expect(await slotsOf(job.id)).toEqual([]);
    expect(await judgeAt('2026-06-01T10:02:00Z')).toBe(1);
    const [execution] = (await service.request('GET', `/api/executions?jobId=${job.id}`)).body;
    expect(execution).toMatchObject({ scheduledAt: '2026-06-01T10:01:00.000Z', trigger: 'schedule' });
    expect(await slotsOf(job.id)).toEqual([
      {
        scheduledAt: '2026-06-01T10:01:00.000Z',
        outcome: 'ran',
        executionIds: [execution.id],
        startedAt: '2026-06-01T10:01:00.000Z',
        delayMs: 0,
        reason: null,
      },
    ]);
    // The database renders the list: byte for byte what res.json would write, fields in order.
    const listed = await service.request('GET', `/api/jobs/${job.id}/slots`);
    expect(listed.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(listed.text).toBe(
      `[{"scheduledAt":"2026-06-01T10:01:00.000Z","outcome":"ran","executionIds":[${execution.id}],` +
        `"startedAt":"2026-06-01T10:01:00.000Z","delayMs":0,"reason":null}]`,
    );
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body.lastSlot).toEqual({
      scheduledAt: '2026-06-01T10:01:00.000Z',
      outcome: 'ran',
    });
    // Judging again judges nothing twice.
    expect(await judgeAt('2026-06-01T10:02:30Z')).toBe(0);
    expect(await slotsOf(job.id)).toHaveLength(1);
  });

  it('judges skipped, suspended and paused slots from what happened at their time', async () => {
    const job = await createJob({ name: 'held', schedule: '* * * * *' });
    // A long run: the next fire time is skipped.
    await tickAt('2026-06-01T10:01:00Z');
    await attempts.waitForStarted(1);
    await tickAt('2026-06-01T10:02:00Z');
    attempts.finishNext();
    await service.local.idle();
    // Switched off over 10:03.
    clock.set('2026-06-01T10:02:30Z');
    expect((await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: false })).status).toBe(
      200,
    );
    await tickAt('2026-06-01T10:03:00Z');
    clock.set('2026-06-01T10:03:30Z');
    await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: true });
    // The scheduler paused over 10:05.
    await tickAt('2026-06-01T10:04:00Z');
    attempts.finishNext();
    await service.local.idle();
    clock.set('2026-06-01T10:04:30Z');
    await service.request('POST', '/api/scheduler/pause');
    await tickAt('2026-06-01T10:05:00Z');
    clock.set('2026-06-01T10:05:30Z');
    await service.request('POST', '/api/scheduler/resume');
    expect(attempts.started).toHaveLength(2);

    await judgeAt('2026-06-01T10:06:30Z');
    const slots = (await slotsOf(job.id)).reverse();
    expect(slots.map((slot) => `${slot.scheduledAt.slice(11, 16)} ${slot.outcome}`)).toEqual([
      '10:01 ran',
      '10:02 skipped',
      '10:03 suspended',
      '10:04 ran',
      '10:05 paused',
    ]);
    expect(slots[1]!.reason).toBe('the previous run of this job was still in progress');
    expect(slots[1]!.executionIds).toHaveLength(1);
    expect(slots[2]!.reason).toBe('the job was disabled at that time');
    expect(slots[4]!.reason).toBe('the scheduler was paused at that time');
  });

  it('judges the slots of a downtime missed, saying why, and fires on at the next slot', async () => {
    const job = await createJob({ name: 'down', schedule: '*/5 * * * *' });
    await service.stop();
    clock.set('2026-06-01T10:15:30Z');
    service = await start();
    await judgeAt('2026-06-01T10:15:30Z');
    const slots = (await slotsOf(job.id)).reverse();
    expect(slots.map((slot) => `${slot.scheduledAt.slice(11, 16)} ${slot.outcome}`)).toEqual([
      '10:05 missed',
      '10:10 missed',
    ]);
    expect(slots[0]!.reason).toBe(
      "nothing started it: the service was not running, or no process was leading it, at that time (the job's catchUp policy is none, so it was not run later)",
    );
    // 10:15 is still within its grace.
    expect(await judgeAt('2026-06-01T10:15:59Z')).toBe(0);
    expect(service.local.nextFireTimes().get(job.id)?.toISOString()).toBe('2026-06-01T10:20:00.000Z');
    expect(attempts.started).toEqual([]);
  });

  it('judges the slots passed over by a stalled process missed, and runs the latest', async () => {
    const job = await createJob({ name: 'stalled', schedule: '* * * * *' });
    await tickAt('2026-06-01T10:03:10Z');
    await attempts.waitForStarted(1);
    attempts.finishNext();
    await service.local.idle();
    await judgeAt('2026-06-01T10:04:10Z');
    expect(await outcomes(job.id)).toEqual(['10:01 missed', '10:02 missed', '10:03 ran']);
    const latest = (await slotsOf(job.id))[0]!;
    expect(latest.delayMs).toBe(10_000);
  });

  it('counts slots by outcome in service_slots_total, and the last success per job', async () => {
    const job = await createJob({ name: 'counted', schedule: '* * * * *' });
    await tickAt('2026-06-01T10:02:00Z');
    await attempts.waitForStarted(1);
    attempts.finishNext();
    await service.local.idle();
    await judgeAt('2026-06-01T10:03:00Z');
    expect(await outcomes(job.id)).toEqual(['10:01 missed', '10:02 ran']);
    const metrics = (await service.request('GET', '/metrics')).text;
    expect(metrics).toContain('service_slots_total{outcome="ran"} 1');
    expect(metrics).toContain('service_slots_total{outcome="missed"} 1');
    expect(metrics).toContain('service_slots_total{outcome="late"} 0');
    expect(metrics).toMatch(/service_job_last_success_timestamp_seconds\{job_name="counted"\} \d+(\.\d+)?/);
  });

  it('judges the slots of a job its alert policy suspended suspended, saying why, until it is switched on', async () => {
    const job = await createJob({ name: 'breaking', schedule: '* * * * *' });
    const alerts = await service.request('PUT', `/api/jobs/${job.id}/alerts`, {
      webhooks: [],
      emails: [],
      policy: { suspendAfterFailures: 1 },
    });
    expect(alerts.status).toBe(200);
    await tickAt('2026-06-01T10:01:00Z');
    await attempts.waitForStarted(1);
    attempts.finishNext({ status: 'failed', exitCode: 1 });
    await service.local.idle();
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body.suspendedReason).not.toBeNull();
    await tickAt('2026-06-01T10:02:00Z');
    clock.set('2026-06-01T10:02:30Z');
    await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: true });
    await tickAt('2026-06-01T10:03:00Z');
    await attempts.waitForStarted(2);
    attempts.finishNext();
    await service.local.idle();
    await judgeAt('2026-06-01T10:04:00Z');
    const slots = (await slotsOf(job.id)).reverse();
    expect(slots.map((slot) => `${slot.scheduledAt.slice(11, 16)} ${slot.outcome}`)).toEqual([
      '10:01 ran',
      '10:02 suspended',
      '10:03 ran',
    ]);
    expect(slots[1]!.reason).toMatch(
      /^the job was suspended by its alert policy: suspended after 1 failed run/,
    );
  });

  it('judges on its own every few seconds while it leads, with real timers', async () => {
    await service.stop();
    service = await startTestService({
      db,
      clock,
      local: { execute: attempts.run, autoTick: true, judgeIntervalMs: 50 },
    });
    const job = await createJob({ name: 'timed', schedule: '0 0 1 1 *' });
    clock.set('2027-01-01T00:01:00Z');
    // The slot of 1 January is judged by the runtime's own timer (the job's run fires by its own too).
    await eventually(async () => (await slotsOf(job.id)).length === 1);
  });

  it('judges each slot by the schedule in force at its time when the job is edited', async () => {
    const job = await createJob({ name: 'edited', schedule: '*/10 * * * *' });
    clock.set('2026-06-01T10:25:00Z');
    const edited = await service.request('PUT', `/api/jobs/${job.id}`, {
      name: 'edited',
      schedule: '*/15 * * * *',
      command: 'true',
    });
    expect(edited.status).toBe(200);
    // Judged in two passes, one before and one after the edit's time.
    await judgeAt('2026-06-01T10:21:30Z');
    await judgeAt('2026-06-01T11:00:00Z');
    expect(await outcomes(job.id)).toEqual(['10:10 missed', '10:20 missed', '10:30 missed', '10:45 missed']);
    // A time zone change likewise: 11:00 in UTC, then 12:00 Berlin time (10:00Z) never comes again.
    clock.set('2026-06-01T11:05:00Z');
    await service.request('PUT', `/api/jobs/${job.id}`, {
      name: 'edited',
      schedule: '0 * * * *',
      timezone: 'Asia/Kolkata',
      command: 'true',
    });
    await judgeAt('2026-06-01T13:00:00Z');
    // 11:00Z under */15; then hourly in Kolkata (UTC+05:30): 11:30Z and 12:30Z.
    expect((await outcomes(job.id)).slice(4)).toEqual(['11:00 missed', '11:30 missed', '12:30 missed']);
  });

  it('fires and judges a wall time that a spring-forward skips once, right after the jump', async () => {
    clock.set('2026-03-29T00:50:00Z'); // 01:50 CET in Berlin
    const job = await createJob({ name: 'spring', schedule: '30 2 * * *', timezone: 'Europe/Berlin' });
    expect((await service.request('GET', `/api/jobs/${job.id}`)).body.nextRun).toBe(
      '2026-03-29T01:00:00.000Z',
    );
    await tickAt('2026-03-29T01:00:00Z'); // 03:00 CEST: 02:30 never shows
    await attempts.waitForStarted(1);
    attempts.finishNext();
    await service.local.idle();
    await judgeAt('2026-03-30T01:00:00Z');
    const slots = await slotsOf(job.id);
    expect(slots.map((slot) => [slot.scheduledAt, slot.outcome])).toEqual([
      ['2026-03-30T00:30:00.000Z', 'missed'],
      ['2026-03-29T01:00:00.000Z', 'ran'],
    ]);
  });

  describe('catch-up after downtime', () => {
    async function downtime(body: Record<string, unknown>, restartAt: string) {
      const job = await createJob({ schedule: '*/5 * * * *', ...body });
      await service.stop();
      clock.set(restartAt);
      service = await start();
      return job;
    }

    it('runs the latest missed slot with policy latest, as the late run of that slot', async () => {
      const job = await downtime({ name: 'latest', catchUp: { policy: 'latest' } }, '2026-06-01T10:17:00Z');
      await attempts.waitForStarted(1);
      attempts.finishNext();
      await service.local.idle();
      const [run] = (await service.request('GET', `/api/executions?jobId=${job.id}`)).body;
      expect(run).toMatchObject({ scheduledAt: '2026-06-01T10:15:00.000Z', trigger: 'catchUp' });
      await judgeAt('2026-06-01T10:17:00Z');
      expect(await outcomes(job.id)).toEqual(['10:05 missed', '10:10 missed', '10:15 late']);
      expect((await slotsOf(job.id))[0]).toMatchObject({ delayMs: 120_000, executionIds: [run.id] });
      // Missed slots of a job that catches up do not suggest setting a policy.
      expect((await slotsOf(job.id))[1]!.reason).toBe(
        'nothing started it: the service was not running, or no process was leading it, at that time',
      );
    });

    it('runs the latest maxRuns missed slots one at a time with policy all, and judges each after its run began', async () => {
      const job = await downtime(
        { name: 'all', catchUp: { policy: 'all', maxRuns: 2 } },
        '2026-06-01T10:17:00Z',
      );
      await attempts.waitForStarted(1);
      // The second waits for the first: one run of a job at a time.
      await judgeAt('2026-06-01T10:17:00Z');
      expect(await outcomes(job.id)).toEqual(['10:05 missed', '10:10 late']);
      attempts.finishNext();
      await attempts.waitForStarted(2);
      attempts.finishNext();
      await service.local.idle();
      await judgeAt('2026-06-01T10:18:00Z');
      expect(await outcomes(job.id)).toEqual(['10:05 missed', '10:10 late', '10:15 late']);
      const runs = (await service.request('GET', `/api/executions?jobId=${job.id}`)).body;
      expect(runs.map((run: { scheduledAt: string }) => run.scheduledAt.slice(11, 16)).sort()).toEqual([
        '10:10',
        '10:15',
      ]);
    });

    it('catches up only slots within withinSeconds, and counts a run within the grace as ran', async () => {
      const job = await downtime(
        { name: 'window', lateAfterSeconds: 300, catchUp: { policy: 'all', withinSeconds: 600 } },
        '2026-06-01T10:17:00Z',
      );
      await attempts.waitForStarted(1);
      attempts.finishNext();
      await attempts.waitForStarted(2);
      attempts.finishNext();
      await service.local.idle();
      await judgeAt('2026-06-01T10:20:00Z');
      // 10:05 is more than 600 s before 10:17; 10:15 started 120 s late, within its 300 s grace.
      expect(await outcomes(job.id)).toEqual(['10:05 missed', '10:10 late', '10:15 ran']);
    });

    it('runs nothing with policy none (the default)', async () => {
      const job = await downtime({ name: 'none' }, '2026-06-01T10:17:00Z');
      await service.local.tick(clock.now());
      expect(attempts.started).toEqual([]);
      await judgeAt('2026-06-01T10:17:00Z');
      expect(await outcomes(job.id)).toEqual(['10:05 missed', '10:10 missed', '10:15 missed']);
    });

    it('runs the slots a stalled process passed over with policy all, after the latest', async () => {
      const job = await createJob({ name: 'stall-all', schedule: '* * * * *', catchUp: { policy: 'all' } });
      await tickAt('2026-06-01T10:03:10Z');
      for (let k = 1; k <= 3; k++) {
        await attempts.waitForStarted(k);
        attempts.finishNext();
      }
      await service.local.idle();
      const runs = (await service.request('GET', `/api/executions?jobId=${job.id}`)).body.reverse();
      expect(
        runs.map(
          (run: { scheduledAt: string; trigger: string }) =>
            `${run.scheduledAt.slice(11, 16)} ${run.trigger}`,
        ),
      ).toEqual(['10:03 schedule', '10:01 catchUp', '10:02 catchUp']);
      await judgeAt('2026-06-01T10:05:00Z');
      expect(await outcomes(job.id)).toEqual(['10:01 late', '10:02 late', '10:03 ran', '10:04 missed']);
    });
  });
});

/** Real commands: what a run's command sees of its slot. */
describe('CRONDECK_SCHEDULED_TIME', () => {
  let service: TestService;
  let clock: ManualClock;

  beforeAll(async () => {
    clock = new ManualClock('2026-06-01T10:00:30Z');
    service = await startTestService({ clock });
  });
  afterAll(async () => {
    await service.stop();
  });

  /** Each execution's stdout, oldest first. */
  async function outputs(jobId: number): Promise<string[]> {
    await service.local.idle();
    const listed = (await service.request('GET', `/api/executions?jobId=${jobId}`)).body as { id: number }[];
    const details = await Promise.all(
      listed
        .reverse()
        .map(async (execution) => (await service.request('GET', `/api/executions/${execution.id}`)).body),
    );
    return details.map((detail: { stdout: string }) => detail.stdout);
  }

  it('is the slot of a scheduled and of a backfilled run, and not set for a run by hand', async () => {
    const job = (
      await service.request('POST', '/api/jobs', {
        name: 'sees-slot',
        schedule: '*/15 * * * *',
        command: 'echo "slot=${CRONDECK_SCHEDULED_TIME-unset}"',
      })
    ).body;
    await service.local.tick(clock.set('2026-06-01T10:15:00.020Z'));
    expect(await outputs(job.id)).toEqual(['slot=2026-06-01T10:15:00.000Z\n']);
    await service.request('POST', `/api/jobs/${job.id}/run`);
    await eventually(async () => (await outputs(job.id)).length === 2);
    expect((await outputs(job.id))[1]).toBe('slot=unset\n');
    clock.set('2026-06-01T11:00:00Z');
    const backfill = await service.request('POST', `/api/jobs/${job.id}/backfill`, {
      from: '2026-06-01T09:00:00Z',
      to: '2026-06-01T09:30:00Z',
      concurrency: 3,
    });
    expect(backfill).toMatchObject({ status: 202, body: { slots: 3 } });
    await eventually(async () => (await outputs(job.id)).length === 5);
    expect((await outputs(job.id)).slice(2).sort()).toEqual([
      'slot=2026-06-01T09:00:00.000Z\n',
      'slot=2026-06-01T09:15:00.000Z\n',
      'slot=2026-06-01T09:30:00.000Z\n',
    ]);
  });
});
