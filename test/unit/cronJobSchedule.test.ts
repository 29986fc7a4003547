import { checkCron } from '../../src/domain/cron';
import { cronJobSchedule } from '../../src/domain/cronJobSchedule';
import { parseRobfigStandard } from '../support/robfigStandardParser';
import recorded from '../fixtures/kube-cronjob-schedules.json';

const exchanges = recorded.exchanges.map((e) => [e.i, e.schedule, e] as const);

describe('the robfig/cron oracle', () => {
  // The oracle stands in for the real server in the tests below, so first: it says what the server said.
  it.each(exchanges)('answers exchange %p (%p) as the real kube-apiserver did', (_i, schedule, exchange) => {
    const serverError = exchange.scheduleErrors[0]?.replace(/^Invalid value: ".*?": /, '');
    if (serverError === undefined) {
      expect(() => parseRobfigStandard(schedule)).not.toThrow();
    } else {
      expect(() => parseRobfigStandard(schedule)).toThrow(serverError);
    }
  });

  it('refuses day-of-week 7, ? ranges and wrapped ranges as robfig does', () => {
    expect(() => parseRobfigStandard('0 0 * * 7')).toThrow('end of range (7) above maximum (6): 7');
    expect(() => parseRobfigStandard('0 0 * * FRI-MON')).toThrow(
      'beginning of range (5) beyond end of range (1)',
    );
    expect(() => parseRobfigStandard('@HOURLY')).toThrow('unrecognized descriptor: @HOURLY');
  });
});

describe('cronJobSchedule', () => {
  it.each(exchanges)('agrees with the real server on exchange %p (%p)', (_i, schedule, exchange) => {
    const check = checkCron(schedule);
    if (exchange.scheduleErrors.length > 0) {
      // What the server refuses, Crondeck refuses on create already.
      expect(check.valid).toBe(false);
      return;
    }
    // What the server accepts, Crondeck either refuses with a reason (@every) or turns into a schedule the server accepts.
    if (!check.valid) {
      expect(check.error).toMatch(/^@every is not supported/);
      return;
    }
    const translated = cronJobSchedule(schedule);
    expect(translated).not.toBeNull();
    expect(() => parseRobfigStandard(translated!)).not.toThrow();
  });

  it.each([
    ['0 9 * * 7', '0 9 * * 0'],
    ['0 9 * * 5-7', '0 9 * * 0,5,6'],
    ['0 0 ? * ?', '0 0 * * *'],
    ['@HOURLY', '@hourly'],
    ['@daily', '@daily'],
    ['0 9 * jan mon-fri', '0 9 * JAN MON-FRI'],
  ])('turns %p, which robfig/cron refuses or reads otherwise, into %p', (expression, schedule) => {
    expect(cronJobSchedule(expression)).toBe(schedule);
    expect(() => parseRobfigStandard(schedule)).not.toThrow();
  });

  it('gives no schedule for an invalid expression', () => {
    expect(cronJobSchedule('H * * * *')).toBeNull();
    expect(cronJobSchedule('@every 90m')).toBeNull();
  });
});
