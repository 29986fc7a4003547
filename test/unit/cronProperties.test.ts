import fc from 'fast-check';
import cronstrue from 'cronstrue';
import { checkCron, nextFireTime } from '../../src/domain/cron';
import { describeSchedule } from '../../src/domain/cronDescription';
import { cronJobSchedule } from '../../src/domain/cronJobSchedule';
import { parseRobfigStandard, robfigNext } from '../support/robfigStandardParser';

const NOW = new Date('2026-03-07T12:34:56Z');
const ZONES = ['UTC', 'America/New_York', 'Asia/Kolkata'];

/** Pieces of every cron dialect around, valid or not, so the mixes reach each branch. */
const token = fc.constantFrom(
  '*',
  '?',
  'H',
  'L',
  'W',
  '#',
  'LW',
  '5L',
  '15W',
  '5#3',
  'H/5',
  'H(0-29)',
  '*/0',
  '*/1',
  '*/7',
  '*/61',
  '0',
  '1',
  '5',
  '7',
  '12',
  '23',
  '29',
  '30',
  '31',
  '59',
  '60',
  '99999999999',
  '-1',
  '+5',
  '05',
  '1-5',
  '5-1',
  '0-7',
  '1-30/5',
  '5/15',
  '1,,2',
  ',',
  '-',
  '/',
  '1-2-3',
  '1//2',
  'JAN',
  'feb',
  'DEC',
  'NOV-FEB',
  'MON',
  'mon-fri',
  'FRI-MON',
  'SUN',
  'THU',
  'JUL',
  'MONDAY',
  'xyz',
  '@daily',
  '@HOURLY',
  '@every',
  '90m',
  '@reboot',
  '@yearly',
  'TZ=UTC',
  'CRON_TZ=Europe/Berlin',
  '',
);
const separator = fc.constantFrom(' ', ' ', ' ', '  ', '\t', ',', '-', '/', '');
const tokenMix = fc
  .array(fc.tuple(token, separator), { minLength: 1, maxLength: 9 })
  .map((parts) => parts.map(([t, s]) => t + s).join(''));

/** Well-formed fields with values that may fall out of range: these reach the accepted path often. */
function fieldOf(max: number, names: string[] = []): fc.Arbitrary<string> {
  const value = fc.oneof(
    fc.integer({ min: 0, max: max + 1 }).map(String),
    ...(names.length ? [fc.constantFrom(...names)] : []),
  );
  const item = fc.oneof(
    fc.constant('*'),
    fc.constant('?'),
    value,
    fc.tuple(value, value).map(([a, b]) => `${a}-${b}`),
    fc.tuple(value, value, fc.integer({ min: 1, max: 40 })).map(([a, b, s]) => `${a}-${b}/${s}`),
    fc.tuple(value, fc.integer({ min: 1, max: 40 })).map(([a, s]) => `${a}/${s}`),
    fc.integer({ min: 1, max: 40 }).map((s) => `*/${s}`),
    // Other dialects' forms, so that accepting one by mistake shows up in the properties below.
    fc.constantFrom('H', 'H/5', 'H(0-9)', 'L', '5L', 'L-2', 'LW', '15W', '5#3', 'FRI#1'),
  );
  return fc.array(item, { minLength: 1, maxLength: 3 }).map((items) => items.join(','));
}
const wellFormed = fc
  .tuple(
    fieldOf(59),
    fieldOf(23),
    fieldOf(31),
    fieldOf(12, ['JAN', 'jun', 'DEC']),
    fieldOf(7, ['SUN', 'mon', 'FRI', 'sat']),
  )
  .map((fields) => fields.join(' '));

const anyExpression = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), tokenMix, wellFormed);

describe('cron properties', () => {
  it('never throws on any input: describe answers valid or invalid with a message', () => {
    fc.assert(
      fc.property(anyExpression, fc.constantFrom(...ZONES), (expression, zone) => {
        const check = checkCron(expression);
        const answer = describeSchedule(expression, zone, NOW);
        expect(answer.valid).toBe(check.valid);
        if (!answer.valid) expect(answer.error.length).toBeGreaterThan(0);
      }),
      { numRuns: 1500 },
    );
  });

  it('describes, schedules and translates every expression it accepts, with one meaning', () => {
    const accepted = anyExpression.filter((expression) => checkCron(expression).valid);
    fc.assert(
      fc.property(accepted, fc.constantFrom(...ZONES), (expression, zone) => {
        const check = checkCron(expression);
        if (!check.valid) throw new Error('filtered');
        // cronstrue itself, not the fallback: the description must be a real one.
        expect(() => cronstrue.toString(check.fields, { verbose: false })).not.toThrow();
        expect(nextFireTime(check.fields, zone, NOW).getTime()).toBeGreaterThan(NOW.getTime());
        // The CronJob schedule parses in robfig/cron and fires at the same times (UTC).
        const schedule = cronJobSchedule(expression);
        expect(schedule).not.toBeNull();
        const parsed = parseRobfigStandard(schedule!);
        if (parsed.kind !== 'spec') throw new Error('@every is never accepted');
        let local = NOW;
        let kube: Date | null = NOW;
        for (let i = 0; i < 3; i++) {
          local = nextFireTime(check.fields, 'UTC', local);
          kube = robfigNext(parsed, kube!);
          expect(kube?.toISOString()).toBe(local.toISOString());
        }
      }),
      { numRuns: 200 },
    );
  });
});
