import { reportTokenFor } from '../../src/domain/reportToken';
import type { CommandResult } from '../../src/runner/runCommand';
import type { RunnableJob } from '../../src/runner/attemptLoop';
import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { eventually, startTestService, type TestService } from '../support/service';

const SECRET = 'the-report-secret-of-this-test-0123456789';

/** The slot ledger's endpoints: the slot history, the job fields, backfill and claims. */
describe('slot ledger API', () => {
  let service: TestService;
  let clock: ManualClock;
  let attempts: ControlledAttempts;
  /** The slot each attempt's command was given, as the command would see it. */
  let slotsSeen: (string | null)[];

  beforeAll(async () => {
    clock = new ManualClock('2026-06-01T10:00:30Z');
    attempts = new ControlledAttempts();
    slotsSeen = [];
    const execute = (job: RunnableJob, attempt: number, signal: AbortSignal): Promise<CommandResult> => {
      slotsSeen.push(job.scheduledAt?.toISOString() ?? null);
      return attempts.run(job, attempt, signal);
    };
    service = await startTestService({ clock, env: { SERVICE_REPORT_SECRET: SECRET }, local: { execute } });
  });
  afterAll(async () => {
    while (attempts.pending.length > 0) attempts.finishNext();
    await service.stop();
  });
  afterEach(async () => {
    while (attempts.pending.length > 0) attempts.finishNext();
    await service.local.idle();
  });

  let names = 0;
  async function createJob(body: Record<string, unknown> = {}): Promise<{ id: number; name: string }> {
    const response = await service.request('POST', '/api/jobs', {
      name: `job-${++names}`,
      schedule: '* * * * *',
      command: 'true',
      ...body,
    });
    expect(response.status).toBe(201);
    return response.body;
  }

  describe('job fields', () => {
    it('takes lateAfterSeconds, catchUp and allowDuplicateSlots on create and replace, and echoes them', async () => {
      const job = await createJob({
        lateAfterSeconds: 300,
        catchUp: { policy: 'all', maxRuns: 3 },
        allowDuplicateSlots: true,
      });
      const read = (await service.request('GET', `/api/jobs/${job.id}`)).body;
      expect(read).toMatchObject({
        lateAfterSeconds: 300,
        catchUp: { policy: 'all', maxRuns: 3, withinSeconds: 3600 },
        allowDuplicateSlots: true,
        lastSlot: null,
      });
      // Sent back as read, the job is accepted (lastSlot is read-only).
      const replaced = await service.request('PUT', `/api/jobs/${job.id}`, {
        ...read,
        catchUp: { policy: 'none' },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({
        lateAfterSeconds: 300,
        catchUp: { policy: 'none', maxRuns: 10, withinSeconds: 3600 },
      });
      const listed = (await service.request('GET', '/api/jobs')).body.find(
        (j: { id: number }) => j.id === job.id,
      );
      expect(listed).toMatchObject({ lateAfterSeconds: 300, allowDuplicateSlots: true });
    });

    it.each([
      [{ lateAfterSeconds: -1 }, 'lateAfterSeconds: must be at least 0'],
      [{ lateAfterSeconds: 86_401 }, 'lateAfterSeconds: must be at most 86400'],
      [{ catchUp: { policy: 'sometimes' } }, 'catchUp.policy: must be one of none, latest, all'],
      [{ catchUp: { policy: 'all', maxRuns: 101 } }, 'catchUp.maxRuns: must be at most 100'],
      [{ catchUp: { policy: 'all', withinSeconds: 30 } }, 'catchUp.withinSeconds: must be at least 60'],
      [{ catchUp: 'latest' }, 'catchUp: must be an object { policy, maxRuns, withinSeconds }'],
      [{ allowDuplicateSlots: 'yes' }, 'allowDuplicateSlots: must be true or false'],
    ])('refuses %p with a 400 naming the field', async (fields, message) => {
      const response = await service.request('POST', '/api/jobs', {
        name: 'refused',
        schedule: '* * * * *',
        command: 'true',
        ...fields,
      });
      expect(response).toMatchObject({ status: 400, body: { error: message } });
    });
  });

  describe('GET /api/jobs/:id/slots', () => {
    it.each([
      ['?from=yesterday', 'from: must be an ISO 8601 timestamp'],
      ['?to=2026-13-01T00:00:00Z', 'to: must be an ISO 8601 timestamp'],
      ['?from=2026-06-02T00:00:00Z&to=2026-06-01T00:00:00Z', 'from: must not be after to'],
      ['?limit=0', 'limit: must be an integer from 1 to 1000'],
      ['?limit=1001', 'limit: must be an integer from 1 to 1000'],
      ['?limit=ten', 'limit: must be an integer from 1 to 1000'],
      ['?limit=5&limit=6', 'limit: may be given only once'],
    ])('answers %s with a 400 naming the field', async (query, message) => {
      const job = await createJob();
      expect(await service.request('GET', `/api/jobs/${job.id}/slots${query}`)).toMatchObject({
        status: 400,
        body: { error: message },
      });
    });

    it('answers 404 for an unknown job and 400 for a path id that is not one', async () => {
      expect(await service.request('GET', '/api/jobs/999999/slots')).toMatchObject({
        status: 404,
        body: { error: 'job 999999 not found' },
      });
      expect((await service.request('GET', '/api/jobs/abc/slots')).status).toBe(400);
    });

    it('lists newest first, within from and to inclusive, at most limit', async () => {
      const job = await createJob({ schedule: '*/10 * * * *' });
      clock.set('2026-06-01T11:00:00Z');
      await service.local.judgeSlots();
      const all = (await service.request('GET', `/api/jobs/${job.id}/slots`)).body.map(
        (slot: { scheduledAt: string }) => slot.scheduledAt.slice(11, 16),
      );
      expect(all).toEqual(['10:50', '10:40', '10:30', '10:20', '10:10']);
      const window = await service.request(
        'GET',
        `/api/jobs/${job.id}/slots?from=2026-06-01T10:20:00Z&to=2026-06-01T10:40:00.000Z&limit=2`,
      );
      expect(window.body.map((slot: { scheduledAt: string }) => slot.scheduledAt)).toEqual([
        '2026-06-01T10:40:00.000Z',
        '2026-06-01T10:30:00.000Z',
      ]);
    });
  });

  describe('POST /api/jobs/:id/backfill', () => {
    beforeEach(() => void clock.set('2026-06-02T12:00:30Z'));

    it('runs each slot of the range once as the run of that slot, at most `concurrency` at a time', async () => {
      const job = await createJob({ schedule: '0 * * * *' });
      slotsSeen.length = 0;
      attempts.started.length = 0;
      const response = await service.request('POST', `/api/jobs/${job.id}/backfill`, {
        from: '2026-06-02T01:00:00Z',
        to: '2026-06-02T05:30:00+00:00',
        concurrency: 2,
      });
      expect(response).toMatchObject({ status: 202, body: { slots: 5 } });
      // Two at a time: the third starts only when one of them ends.
      await attempts.waitForStarted(2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(attempts.pending).toHaveLength(2);
      // One backfill per job at a time.
      expect(
        await service.request('POST', `/api/jobs/${job.id}/backfill`, {
          from: '2026-06-02T06:00:00Z',
          to: '2026-06-02T07:00:00Z',
        }),
      ).toMatchObject({
        status: 409,
        body: {
          error: `job "${job.name}" has a backfill in progress (2 of 5 slots started); wait for it to finish`,
        },
      });
      for (let started = 2; started <= 5; started++) {
        attempts.finishNext();
        if (started < 5) await attempts.waitForStarted(started + 1);
        expect(attempts.pending.length).toBeLessThanOrEqual(2);
      }
      while (attempts.pending.length > 0) attempts.finishNext();
      await service.local.idle();
      expect([...slotsSeen].sort()).toEqual([
        '2026-06-02T01:00:00.000Z',
        '2026-06-02T02:00:00.000Z',
        '2026-06-02T03:00:00.000Z',
        '2026-06-02T04:00:00.000Z',
        '2026-06-02T05:00:00.000Z',
      ]);
      const executions = (await service.request('GET', `/api/executions?jobId=${job.id}`)).body;
      expect(executions).toHaveLength(5);
      expect(new Set(executions.map((e: { trigger: string }) => e.trigger))).toEqual(new Set(['backfill']));
      // Finished: another backfill is accepted.
      await eventually(async () => {
        const again = await service.request('POST', `/api/jobs/${job.id}/backfill`, {
          from: '2026-06-02T06:00:00Z',
          to: '2026-06-02T06:00:00Z',
        });
        return again.status === 202 ? again : null;
      });
      await attempts.waitForStarted(6);
      attempts.finishNext();
    });

    it.each([
      [
        { from: '2026-06-01T00:00:00Z', to: '2026-06-02T00:00:00Z' },
        'from: the range holds more than 1000 slots',
      ],
      [
        { from: '2026-06-02T10:00:30Z', to: '2026-06-02T10:00:50Z' },
        "from: the range holds no slot of the job's schedule",
      ],
      [{ from: '2026-06-02T10:00:00Z', to: '2026-06-02T09:00:00Z' }, 'from: must not be after to'],
      [{ from: '2026-06-02T10:00:00Z', to: '2026-06-02T13:00:00Z' }, 'to: must not be in the future'],
      [{ from: 'monday', to: '2026-06-02T10:00:00Z' }, 'from: must be an ISO 8601 timestamp'],
      [
        { from: '2026-06-02T10:00:00Z', to: '2026-06-02T11:00:00Z', concurrency: 0 },
        'concurrency: must be at least 1',
      ],
      [
        { from: '2026-06-02T10:00:00Z', to: '2026-06-02T11:00:00Z', concurrency: 11 },
        'concurrency: must be at most 10',
      ],
      [{ from: '2026-06-02T10:00:00Z' }, 'to: must be an ISO 8601 timestamp'],
    ])('refuses %p with a 400', async (body, message) => {
      const job = await createJob();
      const response = await service.request('POST', `/api/jobs/${job.id}/backfill`, body);
      expect(response.status).toBe(400);
      expect(response.body.error).toContain(message);
    });

    it('takes 1000 slots, the most one request may run', async () => {
      const job = await createJob({ enabled: true });
      const response = await service.request('POST', `/api/jobs/${job.id}/backfill`, {
        from: '2026-06-01T19:21:00Z',
        to: '2026-06-02T12:00:00Z',
        concurrency: 10,
      });
      expect(response).toMatchObject({ status: 202, body: { slots: 1000 } });
      // Stopped by switching the job off: a disabled job runs nothing more.
      const before = attempts.started.length;
      await attempts.waitForStarted(before + 10);
      await service.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: false });
      while (attempts.pending.length > 0) attempts.finishNext();
      await service.local.idle();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(attempts.started.length - before).toBeLessThanOrEqual(20);
    });

    it('refuses a disabled job with a 409 saying what to do, and an unknown job with a 404', async () => {
      const job = await createJob({ enabled: false });
      const body = { from: '2026-06-02T10:00:00Z', to: '2026-06-02T11:00:00Z' };
      expect(await service.request('POST', `/api/jobs/${job.id}/backfill`, body)).toMatchObject({
        status: 409,
        body: { error: `job "${job.name}" is disabled; enable it to backfill` },
      });
      expect((await service.request('POST', '/api/jobs/999999/backfill', body)).status).toBe(404);
    });
  });

  describe('POST /api/jobs/:id/slots/claim', () => {
    const claim = (jobId: number, body: unknown, token: string | null = reportTokenFor(SECRET, jobId)) =>
      service.request(
        'POST',
        `/api/jobs/${jobId}/slots/claim`,
        body,
        token ? { authorization: `Bearer ${token}` } : {},
      );

    /** A pod's final report of the run `runKey` of a slot, recorded as reports are. */
    async function recordRun(
      jobId: number,
      run: { scheduledAt: string; startedAt: string; runKey: string },
    ): Promise<{ id: number }> {
      const startedAt = new Date(run.startedAt);
      const recorded = await service.recorder.recordReport(
        jobId,
        {
          status: 'success',
          startedAt,
          finishedAt: new Date(startedAt.getTime() + 600_000),
          exitCode: 0,
          stdout: '',
          stderr: '',
          attempt: 0,
          reportKey: `pod:${run.runKey}:0`,
          slot: { scheduledAt: new Date(run.scheduledAt), trigger: 'schedule' },
        },
        true,
      );
      expect(recorded).not.toBeNull();
      return recorded!;
    }

    it('gives a slot to its first run, again to the same run, and refuses a second run', async () => {
      clock.set('2026-06-02T11:58:00Z');
      const job = await createJob({ schedule: '*/5 * * * *' });
      clock.set('2026-06-02T12:00:02Z');
      const slot = { scheduledAt: '2026-06-02T12:00:00Z' };
      expect(await claim(job.id, { ...slot, runKey: 'job-uid-a' })).toMatchObject({
        status: 200,
        body: { claimed: true, scheduledAt: '2026-06-02T12:00:00.000Z' },
      });
      expect(await claim(job.id, { ...slot, runKey: 'job-uid-a' })).toMatchObject({
        status: 200,
        body: { claimed: true },
      });
      expect(await claim(job.id, { ...slot, runKey: 'job-uid-b' })).toMatchObject({
        status: 409,
        body: { error: 'slot 2026-06-02T12:00:00.000Z was already claimed by another run (job-uid-a)' },
      });
      // Judged ran, naming the run that was kept from starting.
      await service.local.judgeSlots(clock.set('2026-06-02T12:01:30Z'));
      const [judged] = (await service.request('GET', `/api/jobs/${job.id}/slots?limit=1`)).body;
      expect(judged).toMatchObject({
        scheduledAt: '2026-06-02T12:00:00.000Z',
        outcome: 'ran',
        reason: 'a second run for this slot was prevented (run job-uid-b)',
      });
    });

    it('lets a second run through when the job allows duplicate slots: the slot is duplicate', async () => {
      clock.set('2026-06-02T12:01:00Z');
      const job = await createJob({ schedule: '*/5 * * * *', allowDuplicateSlots: true });
      const slot = { scheduledAt: '2026-06-02T12:05:00Z' };
      clock.set('2026-06-02T12:05:01Z');
      expect((await claim(job.id, { ...slot, runKey: 'a' })).body).toEqual({
        claimed: true,
        scheduledAt: '2026-06-02T12:05:00.000Z',
      });
      expect((await claim(job.id, { ...slot, runKey: 'b' })).body).toEqual({
        claimed: true,
        duplicate: true,
        scheduledAt: '2026-06-02T12:05:00.000Z',
      });
      await service.local.judgeSlots(clock.set('2026-06-02T12:06:30Z'));
      const [judged] = (await service.request('GET', `/api/jobs/${job.id}/slots?limit=1`)).body;
      expect(judged).toMatchObject({ outcome: 'duplicate', delayMs: 1000, executionIds: [] });
      // Both runs report after the judgement: the slot names both, and no more than the claims let run.
      const first = await recordRun(job.id, { ...slot, startedAt: '2026-06-02T12:05:01.200Z', runKey: 'a' });
      const second = await recordRun(job.id, { ...slot, startedAt: '2026-06-02T12:05:01.100Z', runKey: 'b' });
      await recordRun(job.id, { ...slot, startedAt: '2026-06-02T12:05:09Z', runKey: 'unclaimed' });
      expect((await service.request('GET', `/api/jobs/${job.id}/slots?limit=1`)).body[0]).toEqual({
        ...judged,
        executionIds: [first.id, second.id],
      });
    });

    it('maps the second fire of a DST fall-back to the slot it repeats', async () => {
      clock.set('2026-11-01T07:00:00Z');
      const job = await createJob({ schedule: '30 1 * * *', timezone: 'America/New_York' });
      // 01:30 EST (06:30Z) repeats 01:30 EDT (05:30Z), the slot.
      expect((await claim(job.id, { scheduledAt: '2026-11-01T05:30:00Z', runKey: 'first' })).status).toBe(
        200,
      );
      expect(await claim(job.id, { scheduledAt: '2026-11-01T06:30:00Z', runKey: 'second' })).toMatchObject({
        status: 409,
        body: { error: 'slot 2026-11-01T05:30:00.000Z was already claimed by another run (first)' },
      });
    });

    it('turns a slot judged missed late when its run claims it after all', async () => {
      clock.set('2026-06-02T12:06:00Z');
      const job = await createJob({ schedule: '*/5 * * * *' });
      await service.local.judgeSlots(clock.set('2026-06-02T12:11:00Z'));
      expect((await service.request('GET', `/api/jobs/${job.id}/slots?limit=1`)).body[0]).toMatchObject({
        scheduledAt: '2026-06-02T12:10:00.000Z',
        outcome: 'missed',
      });
      clock.set('2026-06-02T12:12:00Z');
      expect((await claim(job.id, { scheduledAt: '2026-06-02T12:10:00Z', runKey: 'very-late' })).status).toBe(
        200,
      );
      expect((await service.request('GET', `/api/jobs/${job.id}/slots?limit=1`)).body[0]).toMatchObject({
        outcome: 'late',
        delayMs: 120_000,
        reason: 'judged missed, then a run for it started late',
      });
      expect((await service.request('GET', `/api/jobs/${job.id}`)).body.lastSlot).toEqual({
        scheduledAt: '2026-06-02T12:10:00.000Z',
        outcome: 'late',
      });
      // Its run reports when it ends: the late slot then carries that run.
      const run = await recordRun(job.id, {
        scheduledAt: '2026-06-02T12:10:00Z',
        startedAt: '2026-06-02T12:12:00.400Z',
        runKey: 'very-late',
      });
      expect((await service.request('GET', `/api/jobs/${job.id}/slots?limit=1`)).body).toEqual([
        {
          scheduledAt: '2026-06-02T12:10:00.000Z',
          outcome: 'late',
          executionIds: [run.id],
          startedAt: '2026-06-02T12:12:00.400Z',
          delayMs: 120_400,
          reason: 'judged missed, then a run for it started late',
        },
      ]);
    });

    it('gives a slot judged on its claim alone the execution of its run when the run is recorded', async () => {
      clock.set('2026-06-02T12:11:00Z');
      const job = await createJob({ schedule: '*/5 * * * *' });
      clock.set('2026-06-02T12:15:02Z');
      expect((await claim(job.id, { scheduledAt: '2026-06-02T12:15:00Z', runKey: 'long' })).status).toBe(200);
      // A long run: judged ran on its claim, before it reports.
      await service.local.judgeSlots(clock.set('2026-06-02T12:16:30Z'));
      const judged = {
        scheduledAt: '2026-06-02T12:15:00.000Z',
        outcome: 'ran',
        startedAt: '2026-06-02T12:15:02.000Z',
        delayMs: 2000,
        reason: null,
      };
      expect((await service.request('GET', `/api/jobs/${job.id}/slots?limit=1`)).body).toEqual([
        { ...judged, executionIds: [] },
      ]);
      const run = await recordRun(job.id, {
        scheduledAt: '2026-06-02T12:15:00Z',
        startedAt: '2026-06-02T12:15:02.300Z',
        runKey: 'long',
      });
      // The judgement stands; the slot names its run.
      expect((await service.request('GET', `/api/jobs/${job.id}/slots?limit=1`)).body).toEqual([
        { ...judged, executionIds: [run.id] },
      ]);
      expect((await service.request('GET', `/api/jobs/${job.id}`)).body.lastSlot).toEqual({
        scheduledAt: '2026-06-02T12:15:00.000Z',
        outcome: 'ran',
      });
    });

    it('refuses a claim without the job’s own token, with bad input, or for an unknown job', async () => {
      const job = await createJob();
      const other = await createJob();
      const body = { scheduledAt: '2026-06-02T12:00:00Z', runKey: 'k' };
      expect(await claim(job.id, body, null)).toMatchObject({
        status: 403,
        body: { error: 'missing report token: send Authorization: Bearer <token>' },
      });
      expect((await claim(job.id, body, reportTokenFor(SECRET, other.id))).status).toBe(403);
      expect(await claim(job.id, { scheduledAt: 'noon', runKey: 'k' })).toMatchObject({
        status: 400,
        body: { error: 'scheduledAt: must be an ISO 8601 timestamp' },
      });
      expect((await claim(job.id, { scheduledAt: body.scheduledAt })).body.error).toMatch(/^runKey: /);
      expect((await claim(job.id, { ...body, extra: 1 })).body.error).toBe('unknown field extra');
      expect((await claim(999_999, body)).status).toBe(404);
    });
  });
});
