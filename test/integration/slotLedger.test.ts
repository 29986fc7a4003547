import type { Database } from '../../src/store/database';
import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import { eventually, startTestService, type TestService } from '../support/service';

interface SlotJson {
  scheduledAt: string;
  outcome: string;
  executionIds: number[];
  startedAt: string | null;
  delayMs: number | null;
  reason: string | null;
}

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
    expect(metrics).toMatch(/service_job_last_success_timestamp_seconds\{job="counted"\} \d+(\.\d+)?/);
    await eventually(async () => true);
  });
});
