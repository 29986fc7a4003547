import { checkCron, describeCron, nextFireTime } from '../../src/domain/cron';
import { cronJobSchedule } from '../../src/domain/cronJobSchedule';
import { parseRobfigStandard, robfigNext } from '../support/robfigStandardParser';

/** The next `count` fire times in UTC, as the local scheduler computes them. */
function localFires(expression: string, count: number, start = '2026-01-01T00:00:00Z'): string[] {
  const check = checkCron(expression);
  if (!check.valid) throw new Error(check.error);
  const times: string[] = [];
  let after = new Date(start);
  for (let i = 0; i < count; i++) {
    after = nextFireTime(check.fields, 'UTC', after);
    times.push(after.toISOString());
  }
  return times;
}

/** The same, as the Kubernetes CronJob controller (robfig/cron) computes them from the CronJob schedule. */
function kubernetesFires(expression: string, count: number, start = '2026-01-01T00:00:00Z'): string[] {
  const schedule = cronJobSchedule(expression);
  if (schedule === null) throw new Error(`no CronJob schedule for ${expression}`);
  const parsed = parseRobfigStandard(schedule);
  if (parsed.kind !== 'spec') throw new Error('not a spec schedule');
  const times: string[] = [];
  let after: Date | null = new Date(start);
  for (let i = 0; i < count && after; i++) {
    after = robfigNext(parsed, after);
    if (after) times.push(after.toISOString());
  }
  return times;
}

describe('cron forms that are refused, each named', () => {
  it.each([
    ['H * * * *', 'H (hashed) is not supported in minute: pick a minute'],
    ['H/15 * * * *', 'H (hashed) is not supported in minute'],
    ['0 H(0-5) * * *', 'H (hashed) is not supported in hour: pick an hour'],
    ['0 0 L * *', 'L (last) is not supported in day-of-month'],
    ['0 0 * * 5L', 'L (last) is not supported in day-of-week'],
    ['0 0 LW * *', 'L (last) is not supported in day-of-month'],
    ['0 0 15W * *', 'W (nearest weekday) is not supported in day-of-month'],
    ['0 0 * * 5#3', '# (nth weekday of the month) is not supported in day-of-week'],
    ['0 0 * * FRI#1', '# (nth weekday of the month) is not supported in day-of-week'],
    ['@reboot', '@reboot is not supported'],
    ['@every 90m', '@every is not supported'],
    ['@EVERY 1h', '@every is not supported'],
    ['@sometimes', 'unknown macro @sometimes'],
    ['@daily 5', 'unknown macro @daily 5'],
    ['0 */1 * * * *', '6 fields (a seconds field) are not supported'],
    ['0 0 12 * * ? 2026', '7 fields (seconds and year) are not supported'],
    [
      'TZ=Europe/Berlin */1 * * * *',
      'TZ= and CRON_TZ= are not supported in the schedule: set the timezone field',
    ],
    ['CRON_TZ=UTC */1 * * * *', 'TZ= and CRON_TZ= are not supported'],
    ['22-2 * * * *', 'minute range 22-2 wraps around, which is not supported: write 22-59,0-2'],
    ['0 0 * * FRI-MON', 'day-of-week range FRI-MON wraps around, which is not supported: write 5-6,0-1'],
    ['0 0 * NOV-FEB *', 'month range NOV-FEB wraps around'],
    ['*/0 * * * *', 'minute step 0 must be at least 1'],
    ['*/61 * * * *', 'minute step 61 is larger than the minute range 0-59'],
    ['0 0 */99999999999 * *', 'day-of-month step 99999999999 is larger than the day-of-month range 1-31'],
    ['1,,2 * * * *', 'minute field 1,,2 has an empty list item'],
    ['1-2-3 * * * *', 'not a value, a range or a step'],
    ['*-5 * * * *', 'not a value, a range or a step'],
    ['-1 * * * *', 'not a value, a range or a step'],
    ['+5 * * * *', 'minute value +5 is not a number'],
    ['0 0 * * MONDAY', 'day-of-week value MONDAY is not a number or a name such as MON'],
    ['MON * * * *', 'minute value MON is not a number'],
    ['60 * * * *', 'minute value 60 is out of range 0-59'],
    ['0 0 * * 8', 'day-of-week value 8 is out of range 0-7'],
    ['0 0 0 * *', 'day-of-month value 0 is out of range 1-31'],
    ['0 0 30 2 *', 'day-of-month and month never meet (such as 30 February)'],
    ['every minute', 'cron expression must have 5 fields'],
  ])('refuses %p: %s', (expression, message) => {
    const check = checkCron(expression);
    expect(check).toEqual({ valid: false, error: expect.stringContaining(message) });
    expect(cronJobSchedule(expression)).toBeNull();
  });

  it('refuses H for any field, naming the field', () => {
    expect(checkCron('0 0 H * *')).toEqual({
      valid: false,
      error: expect.stringContaining('in day-of-month'),
    });
    expect(checkCron('0 0 * * H')).toEqual({
      valid: false,
      error: expect.stringContaining('in day-of-week'),
    });
  });
});

describe('cron forms that are accepted, with one meaning', () => {
  // [written, canonical fields (what cron-parser, cronstrue and the CronJob read), CronJob schedule]
  it.each([
    ['*/5 * * * *', '*/5 * * * *', '*/5 * * * *'],
    ['0 0 ? * *', '0 0 * * *', '0 0 * * *'],
    ['0 0 * * ?', '0 0 * * *', '0 0 * * *'],
    ['@daily', '0 0 * * *', '@daily'],
    ['@HOURLY', '0 * * * *', '@hourly'],
    ['@Midnight', '0 0 * * *', '@midnight'],
    ['@weekly', '0 0 * * 0', '@weekly'],
    ['@monthly', '0 0 1 * *', '@monthly'],
    ['@yearly', '0 0 1 1 *', '@yearly'],
    ['@annually', '0 0 1 1 *', '@annually'],
    ['1-30/5 * * * *', '1-30/5 * * * *', '1-30/5 * * * *'],
    ['5/15 * * * *', '5-59/15 * * * *', '5-59/15 * * * *'],
    ['0 9 * jan-mar mon-fri', '0 9 * JAN-MAR MON-FRI', '0 9 * JAN-MAR MON-FRI'],
    ['0 9 * * 7', '0 9 * * 0', '0 9 * * 0'],
    ['0 9 * * 5-7', '0 9 * * 0,5,6', '0 9 * * 0,5,6'],
    ['0 9 * * 1-7/2', '0 9 * * 0,1,3,5', '0 9 * * 0,1,3,5'],
    ['*/60 * * * *', '*/60 * * * *', '*/60 * * * *'],
    ['0 9 * * 0,7', '0 9 * * 0', '0 9 * * 0'],
    ['0 9 * * 0-7', '0 9 * * 0-6', '0 9 * * 0-6'],
    ['0 9 * * */2', '0 9 * * 0,2,4,6', '0 9 * * 0,2,4,6'],
    ['0 9 * * 1/2', '0 9 * * 1,3,5', '0 9 * * 1,3,5'],
    ['0 0 */2 * *', '0 0 1-31/2 * *', '0 0 1-31/2 * *'],
    ['*/1 * * * *', '* * * * *', '* * * * *'],
    ['*,5 * * * *', '* * * * *', '* * * * *'],
    ['1,1 * * * *', '1 * * * *', '1 * * * *'],
    ['1-5,3 * * * *', '1-5 * * * *', '1-5 * * * *'],
    ['05 00 * * *', '5 0 * * *', '5 0 * * *'],
    ['0 0 1 * 1', '0 0 1 * 1', '0 0 1 * 1'],
    ['0-10/30 * * * *', '0-10/30 * * * *', '0-10/30 * * * *'],
    ['0 0 29 2 *', '0 0 29 2 *', '0 0 29 2 *'],
    ['  0\t0  *  *  *  ', '0 0 * * *', '0 0 * * *'],
  ])('accepts %p as %p, CronJob schedule %p', (expression, fields, schedule) => {
    const check = checkCron(expression);
    expect(check).toMatchObject({ valid: true, fields });
    expect(cronJobSchedule(expression)).toBe(schedule);
    // The same fire times locally and in Kubernetes (robfig/cron reading the CronJob schedule).
    expect(localFires(expression, 6)).toEqual(kubernetesFires(expression, 6));
  });

  it('reads day-of-week 7 as Sunday', () => {
    expect(localFires('0 9 * * 7', 2)).toEqual(['2026-01-04T09:00:00.000Z', '2026-01-11T09:00:00.000Z']);
  });

  it('reads a stepped range from its start', () => {
    expect(localFires('1-30/5 * * * *', 7)).toEqual([
      '2026-01-01T00:01:00.000Z',
      '2026-01-01T00:06:00.000Z',
      '2026-01-01T00:11:00.000Z',
      '2026-01-01T00:16:00.000Z',
      '2026-01-01T00:21:00.000Z',
      '2026-01-01T00:26:00.000Z',
      '2026-01-01T01:01:00.000Z',
    ]);
  });

  it('fires a stepped day-of-month or a day-of-week when both are restricted, in both runtimes', () => {
    // 2026-01-01 is a Thursday: odd days, or Mondays (the 5th, 12th ...).
    const expected = ['2026-01-03T00:00:00.000Z', '2026-01-05T00:00:00.000Z', '2026-01-07T00:00:00.000Z'];
    expect(localFires('0 0 */2 * 1', 3)).toEqual(expected);
    expect(localFires('0 0 */2 * 1', 6)).toEqual(kubernetesFires('0 0 */2 * 1', 6));
  });

  it('fires an hourly schedule at the same minute every hour', () => {
    // The bug behind issue 11: H picked a new random minute on every parse. Whatever is accepted
    // gives the same answer each time it is read.
    const first = localFires('0 * * * *', 3);
    for (let i = 0; i < 5; i++) expect(localFires('0 * * * *', 3)).toEqual(first);
  });

  it.each([
    ['0 9 * jan-mar mon-fri', 'At 09:00 AM, Monday through Friday, January through March'],
    ['0 9 * * 7', 'At 09:00 AM, only on Sunday'],
    ['0 0 ? * *', 'At 12:00 AM'],
    ['@weekly', 'At 12:00 AM, only on Sunday'],
  ])('describes %p in plain language', (expression, description) => {
    const check = checkCron(expression);
    expect(check.valid && describeCron(check.fields)).toBe(description);
  });
});
