import { checkCron, fireTimesAfter } from '../../src/domain/cron';
import { newestFireTimes, summarizeFireTimes } from '../../src/domain/fireTimeCounts';

/** What the judge's walk lists: every fire time in (after, until], one at a time. */
function listed(fields: string, timeZone: string, after: Date, until: Date): Date[] {
  const times: Date[] = [];
  for (const time of fireTimesAfter(fields, timeZone, after)) {
    if (time.getTime() > until.getTime()) break;
    times.push(time);
  }
  return times;
}

/** A small deterministic generator, so that a failure names a case that comes again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const SCHEDULES = [
  '* * * * *',
  '*/7 * * * *',
  '30 2 * * *',
  '0,30 1-3 * * *',
  '15 9-17 * * 1-5',
  '0 0 1,15 * 5',
  '0 12 * 2 *',
  '*/20 0-4 29 2 *',
  '@hourly',
];
const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'America/Santiago',
  'Asia/Kolkata',
];

describe('summarizeFireTimes', () => {
  it('tells the count, first and last of what listing finds, across DST changes, over days to weeks', () => {
    const next = random(38);
    // Stretches around the DST changes of 2026 in both hemispheres, and plain ones.
    const anchors = [
      '2026-03-08',
      '2026-03-29',
      '2026-04-05',
      '2026-09-06',
      '2026-10-04',
      '2026-10-25',
      '2026-11-01',
      '2026-06-15',
    ];
    for (const expression of SCHEDULES) {
      const check = checkCron(expression);
      if (!check.valid) throw new Error(check.error);
      for (const zone of ZONES) {
        for (let k = 0; k < 4; k++) {
          const anchor = new Date(`${anchors[Math.floor(next() * anchors.length)]}T00:00:00Z`).getTime();
          const after = new Date(anchor - Math.floor(next() * 3 * 86_400_000) + Math.floor(next() * 1000));
          const until = new Date(after.getTime() + Math.floor(next() * 3 * 86_400_000));
          const times = listed(check.fields, zone, after, until);
          const summary = summarizeFireTimes(check.fields, zone, after, until);
          const where = `${expression} in ${zone}, (${after.toISOString()}, ${until.toISOString()}]`;
          expect({ where, ...summary }).toEqual({
            where,
            count: times.length,
            first: times[0] ?? null,
            last: times[times.length - 1] ?? null,
          });
        }
      }
    }
  });

  it('counts half a year of a job firing every minute without listing it', () => {
    const after = new Date('2025-12-01T00:00:30Z');
    const until = new Date('2026-05-30T00:00:00Z');
    const summary = summarizeFireTimes('* * * * *', 'Europe/Berlin', after, until);
    expect(summary).toEqual({
      count: (until.getTime() - new Date('2025-12-01T00:01:00Z').getTime()) / 60_000 + 1,
      first: new Date('2025-12-01T00:01:00Z'),
      last: until,
    });
  });

  it('is empty for an empty or backward stretch', () => {
    const at = new Date('2026-06-01T10:00:00Z');
    expect(summarizeFireTimes('* * * * *', 'UTC', at, at)).toEqual({ count: 0, first: null, last: null });
    expect(summarizeFireTimes('0 0 1 1 *', 'UTC', at, new Date('2026-06-02T00:00:00Z'))).toEqual({
      count: 0,
      first: null,
      last: null,
    });
  });
});

describe('newestFireTimes', () => {
  it('lists the newest fire times of a stretch, newest first, at most as many as asked', () => {
    const next = random(15);
    for (const expression of SCHEDULES) {
      const check = checkCron(expression);
      if (!check.valid) throw new Error(check.error);
      for (const zone of ZONES) {
        // Across the spring-forward of the northern zones, or the autumn one of the southern.
        const start =
          zone.startsWith('America/Santiago') || zone.startsWith('Australia')
            ? Date.UTC(2026, 3, 1)
            : Date.UTC(2026, 2, 26);
        const after = new Date(start + Math.floor(next() * 86_400_000));
        const until = new Date(after.getTime() + Math.floor(next() * 3 * 86_400_000));
        const all = listed(check.fields, zone, after, until);
        for (const max of [1, 16, 100]) {
          expect(newestFireTimes(check.fields, zone, after, until, max)).toEqual(all.slice(-max).reverse());
        }
      }
    }
  });
});
