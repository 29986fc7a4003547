import fc from 'fast-check';
import { checkCron, fireTimesAfter } from '../../src/domain/cron';
import { quickFireTimesAfter } from '../../src/domain/cronWallTimes';

/** Zones with the transitions that bite: none, an hour, half an hour, a far-off offset, the date line. */
const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Apia',
];

const field = (values: readonly string[]) => fc.constantFrom(...values);
/** Expressions of every form the dialect takes, the day rule's four cases included. */
const expression = fc
  .tuple(
    field(['*', '0', '*/7', '0,30', '5-10', '59', '1-30/5', '5/15']),
    field(['*', '0', '2', '*/5', '9-17', '1,2,3', '23']),
    field(['*', '1', '13', '29', '30', '31', '1-10/3', '28-31', '15']),
    field(['*', '2', 'JAN-MAR', '*/2', '12', '4,6,9,11']),
    field(['*', '0', 'MON-FRI', '7', '1-7/2', 'SAT,SUN', '5']),
  )
  .map((parts) => parts.join(' '))
  .filter((expr) => checkCron(expr).valid);

/** Instants from year 0 to 9999, crowded around the DST transitions of recent years. */
const instant = fc.oneof(
  fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }),
  fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_000 }),
  fc.constantFrom(
    Date.parse('2026-03-29T00:59:00Z'),
    Date.parse('2026-10-25T00:30:00Z'),
    Date.parse('2026-03-08T06:59:30Z'),
    Date.parse('0050-01-01T00:00:00Z'),
    Date.parse('0000-01-01T00:00:00Z'),
    Date.parse('1969-12-31T23:59:59.999Z'),
  ),
);

const take = (times: Iterator<Date>, count: number) =>
  Array.from({ length: count }, () => times.next().value.toISOString());

describe('fire times listed from the cron fields', () => {
  it('are the fire times that cron-parser’s wall times give, in every zone and year', () => {
    fc.assert(
      fc.property(expression, fc.constantFrom(...ZONES), instant, (expr, zone, after) => {
        const check = checkCron(expr);
        if (!check.valid) return;
        const count = 8;
        expect(take(quickFireTimesAfter(check.fields, zone, new Date(after)), count)).toEqual(
          take(fireTimesAfter(check.fields, zone, new Date(after)), count),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('count the years 0 to 99 as those years', () => {
    const check = checkCron('0 0 1 1 *');
    if (!check.valid) throw new Error(check.error);
    const slots = take(quickFireTimesAfter(check.fields, 'UTC', new Date('0049-12-31T23:59:59Z')), 3);
    expect(slots).toEqual([
      '0050-01-01T00:00:00.000Z',
      '0051-01-01T00:00:00.000Z',
      '0052-01-01T00:00:00.000Z',
    ]);
    expect(take(quickFireTimesAfter(check.fields, 'UTC', new Date('-000001-06-01T00:00:00Z')), 2)).toEqual([
      '0000-01-01T00:00:00.000Z',
      '0001-01-01T00:00:00.000Z',
    ]);
    // Berlin kept its local mean time then, 53 minutes 28 seconds ahead of Greenwich.
    expect(
      take(quickFireTimesAfter(check.fields, 'Europe/Berlin', new Date('0049-06-01T00:00:00Z')), 1),
    ).toEqual(['0049-12-31T23:06:32.000Z']);
    expect(
      take(fireTimesAfter(check.fields, 'Europe/Berlin', new Date('-000001-06-01T00:00:00Z')), 2),
    ).toEqual(['-000001-12-31T23:06:32.000Z', '0000-12-31T23:06:32.000Z']);
  });
});
