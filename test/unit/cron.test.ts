import { checkCron, describeCron, nextFireTime } from '../../src/domain/cron';
import { describeSchedule } from '../../src/domain/cronDescription';
import { instantOfWallTime, isValidTimeZone, wallTimeOf } from '../../src/domain/timezone';

/** The fire times after `start`, as ISO strings. */
function fireTimes(expression: string, timeZone: string, start: string, count: number): string[] {
  const check = checkCron(expression);
  if (!check.valid) throw new Error(check.error);
  const times: string[] = [];
  let after = new Date(start);
  for (let i = 0; i < count; i++) {
    after = nextFireTime(check.fields, timeZone, after);
    times.push(after.toISOString());
  }
  return times;
}

describe('checkCron', () => {
  it.each([['*/5 * * * *'], ['0 9 * * 1-5'], ['30 2 1 1 *'], ['@daily'], ['@HOURLY'], ['  0  0  *  *  *  ']])(
    'accepts %p',
    (expression) => {
      expect(checkCron(expression).valid).toBe(true);
    },
  );

  it.each([
    ['60 * * * *', 'minute value 60 is out of range 0-59'],
    ['0 24 * * *', 'hour value 24 is out of range 0-23'],
    ['0 0 32 * *', 'day-of-month value 32 is out of range 1-31'],
    ['0 0 * 13 *', 'month value 13 is out of range 1-12'],
    ['* * *', 'cron expression must have 5 fields (minute hour day-of-month month day-of-week), got 3'],
    ['0 * * * * *', '6 fields (a seconds field) are not supported: use 5 fields, minute first'],
    ['', 'cron expression is empty'],
    ['@sometimes', 'unknown macro @sometimes'],
  ])('rejects %p naming the problem', (expression, message) => {
    const check = checkCron(expression);
    expect(check.valid).toBe(false);
    expect(!check.valid && check.error).toContain(message);
  });

  it('rejects an expression that can never fire', () => {
    expect(checkCron('0 0 30 2 *').valid).toBe(false);
  });
});

describe('describeCron', () => {
  it('speaks plain language', () => {
    expect(describeCron('*/5 * * * *')).toBe('Every 5 minutes');
  });

  it('falls back to the fields where cronstrue throws (it throws strings)', () => {
    expect(describeCron('H * * * *')).toBe('cron schedule H * * * *');
  });
});

describe('describeSchedule', () => {
  it('answers valid false, never throws, when a later step fails', () => {
    // The route checks the zone first; this is the net under any path that still throws.
    expect(describeSchedule('0 9 * * *', 'Mars/Olympus', new Date('2026-06-01T00:00:00Z'))).toEqual({
      valid: false,
      error: expect.stringMatching(/^cannot read this cron expression: /),
    });
  });
});

describe('nextFireTime', () => {
  it('reads the schedule in UTC by default and in the given zone otherwise', () => {
    expect(fireTimes('0 9 * * *', 'UTC', '2026-06-01T00:00:00Z', 1)).toEqual(['2026-06-01T09:00:00.000Z']);
    expect(fireTimes('0 9 * * *', 'Europe/Berlin', '2026-06-01T00:00:00Z', 1)).toEqual([
      '2026-06-01T07:00:00.000Z',
    ]);
    expect(fireTimes('0 9 * * *', 'Asia/Kolkata', '2026-06-01T00:00:00Z', 1)).toEqual([
      '2026-06-01T03:30:00.000Z',
    ]);
  });

  it('fires strictly after the given instant', () => {
    expect(fireTimes('0 * * * *', 'UTC', '2026-06-01T10:00:00.000Z', 1)).toEqual([
      '2026-06-01T11:00:00.000Z',
    ]);
  });

  describe('when clocks fall back (New York, 2026-11-01 02:00 EDT → 01:00 EST)', () => {
    it('fires a repeated wall time once, at its first occurrence', () => {
      expect(fireTimes('30 1 * * *', 'America/New_York', '2026-10-31T12:00:00Z', 2)).toEqual([
        '2026-11-01T05:30:00.000Z', // 01:30 EDT
        '2026-11-02T06:30:00.000Z', // 01:30 EST, the next day
      ]);
    });

    it('does not fire the repeated hour again for an interval schedule', () => {
      expect(fireTimes('*/30 * * * *', 'America/New_York', '2026-11-01T04:45:00Z', 4)).toEqual([
        '2026-11-01T05:00:00.000Z', // 01:00 EDT
        '2026-11-01T05:30:00.000Z', // 01:30 EDT
        // 01:00 and 01:30 EST repeat wall times already fired
        '2026-11-01T07:00:00.000Z', // 02:00 EST
        '2026-11-01T07:30:00.000Z',
      ]);
    });

    it('does not fire again when asked from inside the repeated hour', () => {
      // 06:10Z is 01:10 EST, the second pass; 01:30 already fired at 05:30Z.
      expect(fireTimes('30 1 * * *', 'America/New_York', '2026-11-01T06:10:00Z', 1)).toEqual([
        '2026-11-02T06:30:00.000Z',
      ]);
    });
  });

  describe('when clocks spring forward (New York, 2026-03-08 02:00 EST → 03:00 EDT)', () => {
    it('fires a skipped wall time once, right after the jump', () => {
      expect(fireTimes('30 2 * * *', 'America/New_York', '2026-03-07T12:00:00Z', 2)).toEqual([
        '2026-03-08T07:00:00.000Z', // 03:00 EDT
        '2026-03-09T06:30:00.000Z', // 02:30 EDT the next day
      ]);
    });

    it('fires several skipped wall times once together', () => {
      expect(fireTimes('*/15 2 * * *', 'America/New_York', '2026-03-08T06:50:00Z', 2)).toEqual([
        '2026-03-08T07:00:00.000Z',
        '2026-03-09T06:00:00.000Z',
      ]);
    });

    it('keeps hourly schedules regular across the jump', () => {
      expect(fireTimes('0 * * * *', 'America/New_York', '2026-03-08T05:30:00Z', 3)).toEqual([
        '2026-03-08T06:00:00.000Z', // 01:00 EST
        '2026-03-08T07:00:00.000Z', // 03:00 EDT (02:00 does not exist)
        '2026-03-08T08:00:00.000Z',
      ]);
    });
  });
});

describe('time zone helpers', () => {
  it('knows IANA names', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });

  it('maps wall times to instants and back', () => {
    const instant = Date.parse('2026-07-01T12:34:56.789Z');
    const wall = wallTimeOf(instant, 'Australia/Sydney');
    expect(new Date(wall).toISOString()).toBe('2026-07-01T22:34:56.789Z');
    expect(instantOfWallTime(wall, 'Australia/Sydney')).toBe(instant);
  });
});
