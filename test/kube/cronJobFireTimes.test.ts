import { KubeEmulator } from '../support/kube/emulator';
import { parseRobfigStandard, robfigNext, robfigNextInZone } from '../support/robfigStandardParser';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function spec(expression: string) {
  const schedule = parseRobfigStandard(expression);
  if (schedule.kind !== 'spec') throw new Error('a five-field schedule');
  return schedule;
}

/** The fire times in (from, to] as robfig/cron's Next walks them in the zone. */
function robfigFires(expression: string, timeZone: string, from: number, to: number): string[] {
  const fires: string[] = [];
  for (let at = robfigNextInZone(spec(expression), new Date(from), timeZone); at && at.getTime() <= to;) {
    fires.push(at.toISOString());
    at = robfigNextInZone(spec(expression), at, timeZone);
  }
  return fires;
}

/** The first instant after `from` at which the zone's UTC offset changes in `direction`. */
function nextOffsetChange(timeZone: string, from: number, direction: 'back' | 'forward'): number {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  });
  const offset = (at: number) => {
    const parts = Object.fromEntries(
      format.formatToParts(new Date(at)).map((p) => [p.type, Number(p.value)]),
    );
    return Date.UTC(parts.year!, parts.month! - 1, parts.day, parts.hour, parts.minute) - at;
  };
  for (let at = Math.ceil(from / HOUR) * HOUR; at < from + 400 * DAY; at += 30 * MINUTE) {
    const change = offset(at) - offset(at - 30 * MINUTE);
    if (direction === 'back' ? change < 0 : change > 0) return at;
  }
  throw new Error(`${timeZone} changes its offset ${direction} in no coming year`);
}

/**
 * The oracle first (test/support/robfigStandardParser.ts, robfig/cron v3's Next ported line for
 * line), then the emulator's CronJob controller, which walks schedules with it: synced through a
 * DST change, it fires what the real controller fires, including kubernetes#121594.
 */
describe('robfig/cron’s Next in a time zone (the oracle)', () => {
  const from = Date.now();

  it('agrees in UTC with the UTC walk of the oracle', () => {
    const start = Date.parse('2027-01-01T00:00:00Z');
    for (const expression of ['*/7 * * * *', '15 */5 * * *', '0 0 1,15 * 1', '0 0 */10 * 5', '30 6 * 2 *']) {
      const zoned: string[] = [];
      const utc: string[] = [];
      let a: Date | null = new Date(start);
      let b: Date | null = new Date(start);
      for (let k = 0; k < 50; k++) {
        a = robfigNextInZone(spec(expression), a!, 'UTC');
        b = robfigNext(spec(expression), b!);
        zoned.push(a!.toISOString());
        utc.push(b!.toISOString());
      }
      expect([expression, zoned]).toEqual([expression, utc]);
    }
  });

  it('finds a wall time a fall-back repeats twice, one a spring-forward skips never', () => {
    const back = nextOffsetChange('America/New_York', from, 'back'); // 02:00 EDT becomes 01:00 EST
    expect(robfigFires('30 1 * * *', 'America/New_York', back - 3 * HOUR, back + 3 * HOUR)).toEqual([
      new Date(back - 30 * MINUTE).toISOString(),
      new Date(back + 30 * MINUTE).toISOString(),
    ]);
    const forward = nextOffsetChange('America/New_York', from, 'forward'); // 02:00 EST becomes 03:00 EDT
    expect(robfigFires('30 2 * * *', 'America/New_York', forward - 12 * HOUR, forward + 12 * HOUR)).toEqual(
      [],
    );
  });

  it('fires a day-of-month and day-of-week schedule on either day, one with a star on both', () => {
    const march = Date.parse('2027-02-28T23:59:00Z');
    const days = (expression: string) =>
      robfigFires(expression, 'UTC', march, march + 31 * DAY).map((at) => Number(at.slice(8, 10)));
    expect(days('0 0 1 * 1')).toEqual([1, 8, 15, 22, 29]); // the 1st, and Mondays
    expect(days('0 0 */10 * 5')).toEqual([1, 5, 11, 12, 19, 21, 26, 31]); // a step is no star
    expect(days('0 0 * * 1')).toEqual([1, 8, 15, 22, 29]);
    expect(days('0 0 1-3 * *')).toEqual([1, 2, 3]);
  });

  it('walks hours by real time, so a half-hour DST change moves or drops a fire (Lord Howe)', () => {
    // 02:00 LHDT becomes 01:30 LHST: the hour after 01:00 is 02:30, and 02:00 is passed over that day.
    const back = nextOffsetChange('Australia/Lord_Howe', from, 'back');
    expect(robfigFires('0 2 * * *', 'Australia/Lord_Howe', back - DAY - MINUTE, back + DAY + HOUR)).toEqual([
      new Date(back - DAY).toISOString(),
      new Date(back + DAY + 30 * MINUTE).toISOString(),
    ]);
  });
});

describe('the emulated CronJob controller', () => {
  let emu: KubeEmulator;
  let now = 0;

  beforeEach(async () => {
    emu = await KubeEmulator.start({ now: () => new Date(now) });
    emu.seed(emu.typeByName('namespaces'), {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'ops' },
    });
  });
  afterEach(() => emu.stop());

  /** Creates a CronJob at `from`, syncs it every `stepMs` until `to`, and answers when its Jobs are for. */
  function firesBySync(
    expression: string,
    timeZone: string,
    from: number,
    to: number,
    stepMs: number,
  ): string[] {
    now = from;
    const name = `c${Math.random().toString(36).slice(2, 8)}`;
    emu.seed(emu.typeByName('batch/cronjobs'), {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name, namespace: 'ops' },
      spec: {
        schedule: expression,
        timeZone,
        concurrencyPolicy: 'Allow',
        jobTemplate: {
          spec: {
            template: {
              spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] },
            },
          },
        },
      },
    });
    const fires: string[] = [];
    for (now = from + stepMs; now <= to; now += stepMs) {
      const job: Obj | null = emu.syncCronJob('ops', name);
      if (job) fires.push(new Date(Number(job.metadata.name.slice(name.length + 1)) * MINUTE).toISOString());
    }
    return fires;
  }

  it.each([
    ['America/New_York', 'back', '30 1 * * *'],
    ['America/New_York', 'forward', '30 2 * * *'],
    ['America/New_York', 'forward', '0 3 * * *'],
    ['Europe/Berlin', 'back', '*/20 2 * * *'],
    ['Australia/Lord_Howe', 'back', '0 2 * * *'],
    ['Australia/Lord_Howe', 'forward', '30 1 * * *'],
  ] as const)(
    'in %s fires around its next change %s as robfig/cron does (%s)',
    (zone, direction, expression) => {
      const change = nextOffsetChange(zone, Date.now(), direction);
      const [from, to] = [change - 30 * HOUR, change + 30 * HOUR];
      const fires = firesBySync(expression, zone, from, to, 15 * MINUTE);
      expect(fires).toEqual(robfigFires(expression, zone, from, to));
      expect(fires.length).toBeGreaterThan(0);
    },
  );

  it('fires a day-of-month and day-of-week schedule on either day', () => {
    const from = Date.parse('2027-02-28T12:00:00Z');
    const fires = firesBySync('0 0 1 * 1', 'UTC', from, from + 31 * DAY, 6 * HOUR);
    expect(fires.map((at) => at.slice(0, 10))).toEqual([
      '2027-03-01',
      '2027-03-08',
      '2027-03-15',
      '2027-03-22',
      '2027-03-29',
    ]);
  });
});
