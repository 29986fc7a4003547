import { CronExpression } from 'cron-parser';
import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { eventually, startTestService, type TestService } from '../support/service';

/**
 * A backfill's range counted as written (issue 38, defects 3 and 4): years 0 to 99 are those
 * years, not 1900 to 1999; the limit of 1000 slots holds for the real count; and a range that is
 * refused for being too wide costs no search of cron-parser's (0.2 to 12 ms a step), so that a
 * client sending them in a loop cannot hold the service up.
 */
describe('a backfill’s range', () => {
  let service: TestService;
  let attempts: ControlledAttempts;
  let cronSteps: jest.SpyInstance;

  beforeEach(async () => {
    attempts = new ControlledAttempts();
    service = await startTestService({
      clock: new ManualClock('2026-06-02T12:00:30Z'),
      local: { execute: attempts.run },
    });
    cronSteps = jest.spyOn(CronExpression.prototype, 'next');
  });
  afterEach(async () => {
    cronSteps.mockRestore();
    while (attempts.pending.length > 0) attempts.finishNext();
    await service.stop();
  });

  const createJob = async (name: string, schedule: string, timezone?: string) =>
    (await service.request('POST', '/api/jobs', { name, schedule, command: 'true', timezone })).body as {
      id: number;
    };
  const backfill = (jobId: number, from: string, to: string) =>
    service.request('POST', `/api/jobs/${jobId}/backfill`, { from, to });
  const storedSlots = async (jobId: number) =>
    (
      await service.db.pool.query<{ slot: Date }>(
        'SELECT unnest(slots) AS slot FROM slot_backfills WHERE job_id = $1 ORDER BY 1',
        [jobId],
      )
    ).rows.map((row) => row.slot.toISOString());

  it('reads the years 0 to 99 as those years', async () => {
    const job = await createJob('yearly', '0 0 1 1 *');
    const answer = await backfill(job.id, '0050-01-01T00:00:00Z', '0060-12-31T00:00:00Z');
    expect(answer).toMatchObject({ status: 202, body: { slots: 11 } });
    const slots = await storedSlots(job.id);
    expect(slots[0]).toBe('0050-01-01T00:00:00.000Z');
    expect(slots[10]).toBe('0060-01-01T00:00:00.000Z');
    expect(slots).toHaveLength(11);
    // Its first run is recorded as the run of that slot.
    await attempts.waitForStarted(1);
    attempts.finishNext();
    const [first] = await eventually(async () => {
      const executions = (await service.request('GET', `/api/executions?jobId=${job.id}`)).body;
      return executions.length > 0 && executions;
    });
    expect(first).toMatchObject({ trigger: 'backfill', scheduledAt: '0050-01-01T00:00:00.000Z' });
  });

  it('reads a range in a zone of the years 0 to 99 as those years too', async () => {
    const job = await createJob('yearly-berlin', '0 0 1 1 *', 'Europe/Berlin');
    const answer = await backfill(job.id, '0050-01-01T00:00:00Z', '0060-12-31T00:00:00Z');
    // Berlin's midnight came 53 min 28 s before Greenwich's (local mean time): that of 1 January
    // 0050 is before the range, and that of 1 January 0061 after it.
    expect(answer).toMatchObject({ status: 202, body: { slots: 10 } });
    expect((await storedSlots(job.id))[0]).toBe('0050-12-31T23:06:32.000Z');
  });

  it('refuses a range of more than 1000 real slots, however far back it starts', async () => {
    const job = await createJob('yearly-long', '0 0 1 1 *');
    const answer = await backfill(job.id, '0000-01-01T00:00:00Z', '2026-06-01T00:00:00Z');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain('from: the range holds more than 1000 slots');
    // 1000 of them: the most a backfill takes.
    expect(await backfill(job.id, '1027-01-01T00:00:00Z', '2026-06-01T00:00:00Z')).toMatchObject({
      status: 202,
      body: { slots: 1000 },
    });
  });

  it('refuses a range too wide without a search of cron-parser’s', async () => {
    const every = await createJob('every-minute', '* * * * *', 'America/New_York');
    const yearly = await createJob('new-year', '0 0 1 1 *');
    cronSteps.mockClear();
    for (const [jobId, from] of [
      [every.id, '2025-01-01T00:00:00Z'],
      [yearly.id, '0000-01-01T00:00:00Z'],
    ] as const) {
      const answer = await backfill(jobId, from, '2026-06-01T00:00:00Z');
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain('more than 1000 slots');
    }
    expect(cronSteps).not.toHaveBeenCalled();
  });
});
