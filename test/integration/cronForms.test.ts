import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { startTestService, type TestService } from '../support/service';

/** Issue 11: each cron form is refused with its name everywhere, or means one thing everywhere. */
describe('cron forms through the API', () => {
  let service: TestService;
  let clock: ManualClock;
  let attempts: ControlledAttempts;

  beforeAll(async () => {
    // A Saturday.
    clock = new ManualClock('2026-06-06T10:00:30Z');
    attempts = new ControlledAttempts();
    service = await startTestService({
      clock,
      local: { execute: attempts.run, sleep: async () => undefined },
    });
  });
  afterAll(async () => {
    while (attempts.pending.length > 0) attempts.finishNext();
    await service.stop();
  });

  const describe_ = (expr: string) =>
    service.request('GET', `/api/cron/describe?expr=${encodeURIComponent(expr)}`);

  it.each([
    ['H * * * *', 'H (hashed) is not supported in minute: pick a minute'],
    ['0 0 L * *', 'L (last) is not supported in day-of-month'],
    ['0 0 15W * *', 'W (nearest weekday) is not supported in day-of-month'],
    ['0 0 * * 5#3', '# (nth weekday of the month) is not supported in day-of-week'],
    ['@reboot', '@reboot is not supported: jobs run on a schedule, not when the service starts'],
    [
      '@every 90m',
      '@every is not supported: write the interval as a cron expression, e.g. */15 * * * * or 0 */2 * * *',
    ],
    ['0 */5 * * * *', '6 fields (a seconds field) are not supported: use 5 fields, minute first'],
    ['22-2 * * * *', 'minute range 22-2 wraps around, which is not supported: write 22-59,0-2'],
  ])(
    'refuses %p in describe (200, valid false), on create and on update (400)',
    async (schedule, message) => {
      const described = await describe_(schedule);
      expect([described.status, described.body]).toEqual([200, { valid: false, error: message }]);

      const created = await service.request('POST', '/api/jobs', {
        name: 'refused',
        schedule,
        command: 'true',
      });
      expect([created.status, created.body]).toEqual([400, { error: `schedule: ${message}` }]);

      const job = await service.request('POST', '/api/jobs', {
        name: `ok-${Math.random().toString(36).slice(2)}`,
        schedule: '@daily',
        command: 'true',
      });
      const updated = await service.request('PUT', `/api/jobs/${job.body.id}`, { ...job.body, schedule });
      expect([updated.status, updated.body]).toEqual([400, { error: `schedule: ${message}` }]);
      await service.request('DELETE', `/api/jobs/${job.body.id}`);
    },
  );

  it('gives day-of-week 7 the meaning Sunday in describe, in the next run and in firing', async () => {
    const described = await describe_('0 9 * * 7');
    expect(described.body).toEqual({
      valid: true,
      description: 'At 09:00 AM, only on Sunday',
      nextRun: '2026-06-07T09:00:00.000Z',
    });
    const job = await service.request('POST', '/api/jobs', {
      name: 'sunday',
      schedule: '0 9 * * 7',
      command: 'true',
    });
    expect(job.status).toBe(201);
    expect(job.body).toMatchObject({ schedule: '0 9 * * 7', nextRun: '2026-06-07T09:00:00.000Z' });

    service.local.tick(clock.set('2026-06-07T09:00:00Z'));
    await attempts.waitForStarted(1);
    expect(attempts.started).toEqual([{ jobName: 'sunday', attempt: 0 }]);
    attempts.finishNext();
    await service.local.idle();
    expect(service.local.nextFireTimes().get(job.body.id)?.toISOString()).toBe('2026-06-14T09:00:00.000Z');
    await service.request('DELETE', `/api/jobs/${job.body.id}`);
  });

  it.each([
    ['0 0 ? * MON-FRI', 'At 12:00 AM, Monday through Friday'],
    ['1-30/5 * * * *', 'Every 5 minutes, minutes 1 through 30 past the hour'],
    ['@HOURLY', 'Every hour'],
  ])('describes the accepted form %p', async (expr, description) => {
    const described = await describe_(expr);
    expect(described.body).toEqual({ valid: true, description, nextRun: expect.any(String) });
  });
});
