/**
 * A test oracle: robfig/cron v3's `ParseStandard` (the parser the Kubernetes CronJob validation and
 * controller use), ported line for line for what it accepts and which minutes/hours/days it sets.
 * Kubernetes additionally refuses any schedule containing "TZ". Errors carry robfig's wording, so
 * the tests can compare them with the 422 bodies a real kube-apiserver sent.
 */

export type RobfigSchedule =
  | { kind: 'every' }
  | {
      kind: 'spec';
      minute: Set<number>;
      hour: Set<number>;
      dom: Set<number>;
      month: Set<number>;
      dow: Set<number>;
      /** robfig's star bit: a day field written as * or ? makes the other day field decide alone. */
      domStar: boolean;
      dowStar: boolean;
    };

type Bounds = { min: number; max: number; names?: Record<string, number> };

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: {
    jan: 1,
    feb: 2,
    mar: 3,
    apr: 4,
    may: 5,
    jun: 6,
    jul: 7,
    aug: 8,
    sep: 9,
    oct: 10,
    nov: 11,
    dec: 12,
  },
};
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

type Field = { values: Set<number>; star: boolean };

export function parseRobfigStandard(spec: string): RobfigSchedule {
  if (spec.length === 0) throw new Error('empty spec string');
  if (spec.includes('TZ'))
    throw new Error('cannot use TZ or CRON_TZ in schedule, use timeZone field instead');
  if (spec.startsWith('@')) return parseDescriptor(spec);
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5)
    throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, dom, month, dow] = [
    getField(fields[0]!, MINUTES),
    getField(fields[1]!, HOURS),
    getField(fields[2]!, DOM),
    getField(fields[3]!, MONTHS),
    getField(fields[4]!, DOW),
  ];
  return {
    kind: 'spec',
    minute: minute.values,
    hour: hour.values,
    dom: dom.values,
    month: month.values,
    dow: dow.values,
    domStar: dom.star,
    dowStar: dow.star,
  };
}

function getField(field: string, bounds: Bounds): Field {
  // strings.FieldsFunc drops empty items.
  const result: Field = { values: new Set(), star: false };
  for (const expr of field.split(',').filter((r) => r !== '')) {
    const range = getRange(expr, bounds);
    range.values.forEach((v) => result.values.add(v));
    result.star ||= range.star;
  }
  return result;
}

function getRange(expr: string, r: Bounds): Field {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step: number;
  if (rangeAndStep.length === 1) step = 1;
  else if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    if (singleDigit) end = r.max;
    if (step > 1) star = false;
  } else throw new Error(`too many slashes: ${expr}`);
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  const values = new Set<number>();
  for (let v = start; v <= end; v += step) values.add(v);
  return { values, star };
}

function parseIntOrName(expr: string, names?: Record<string, number>): number {
  const named = names?.[expr.toLowerCase()];
  if (named !== undefined) return named;
  return mustParseInt(expr);
}

/** Go's strconv.Atoi: optional sign, decimal digits only. */
function mustParseInt(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new Error(`failed to parse int from ${expr}: invalid syntax`);
  const num = Number(expr);
  if (num < 0) throw new Error(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

function parseDescriptor(spec: string): RobfigSchedule {
  // Case-sensitive, as in robfig's switch statement.
  const fields = DESCRIPTORS[spec];
  if (fields) return parseRobfigStandard(fields);
  if (spec.startsWith('@every ')) {
    if (!/^\d+(\.\d+)?(ns|us|µs|ms|s|m|h)(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))*$/.test(spec.slice(7))) {
      throw new Error(`failed to parse duration ${spec}`);
    }
    return { kind: 'every' };
  }
  throw new Error(`unrecognized descriptor: ${spec}`);
}

/** Whether a UTC instant is a fire time, with robfig's day rule (star bits decide AND or OR). */
function robfigMatches(schedule: RobfigSchedule & { kind: 'spec' }, at: Date): boolean {
  const domMatch = schedule.dom.has(at.getUTCDate());
  const dowMatch = schedule.dow.has(at.getUTCDay());
  const dayMatches = schedule.domStar || schedule.dowStar ? domMatch && dowMatch : domMatch || dowMatch;
  return (
    at.getUTCSeconds() === 0 &&
    schedule.minute.has(at.getUTCMinutes()) &&
    schedule.hour.has(at.getUTCHours()) &&
    schedule.month.has(at.getUTCMonth() + 1) &&
    dayMatches
  );
}

/** The first fire time strictly after `after` (UTC), searched like robfig's Next: by month, day, hour, minute. */
export function robfigNext(schedule: RobfigSchedule & { kind: 'spec' }, after: Date): Date | null {
  const t = new Date(after.getTime());
  t.setUTCSeconds(0, 0);
  t.setUTCMinutes(t.getUTCMinutes() + 1);
  const limit = after.getUTCFullYear() + 5; // robfig gives up after five years too
  while (t.getUTCFullYear() <= limit) {
    if (!schedule.month.has(t.getUTCMonth() + 1)) {
      t.setUTCMonth(t.getUTCMonth() + 1, 1);
      t.setUTCHours(0, 0);
      continue;
    }
    const probe = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate(), 0, 0));
    const daySchedule = { ...schedule, minute: new Set([0]), hour: new Set([0]) };
    if (!robfigMatches(daySchedule, probe)) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0);
      continue;
    }
    if (!schedule.hour.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0);
      continue;
    }
    if (!schedule.minute.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1);
      continue;
    }
    return t;
  }
  return null;
}

/** Wall-clock fields of an instant in a zone, as Go's time.Time methods give them. */
interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function wallOf(instant: number, timeZone: string): Wall {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday!),
  };
}

/** The zone's UTC offset at an instant, in ms. */
function offsetAt(instant: number, timeZone: string): number {
  const w = wallOf(instant, timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(instant / 1000) * 1000;
}

/**
 * Go's time.Date(year, month, day, hour, min, sec, 0, loc): out-of-range fields carry over, and a
 * wall time the zone skips or repeats resolves as Go resolves it: the offset in force at the wall
 * time read as UTC, unless the instant that gives lies outside that offset's period.
 */
function goDate(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  timeZone: string,
): number {
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  let offset = offsetAt(local, timeZone);
  const utc = local - offset;
  if (offsetAt(utc, timeZone) !== offset) offset = offsetAt(utc, timeZone);
  return local - offset;
}

/**
 * robfig/cron v3's SpecSchedule.Next in a time zone, line for line: the first fire time strictly
 * after `after`, found by moving a time through the zone's wall clock (months and days by Go's
 * AddDate, hours, minutes and seconds by adding real time). This is how the CronJob controller
 * walks a schedule with `timeZone`: a wall time a fall-back repeats is found twice, one a
 * spring-forward skips never.
 */
export function robfigNextInZone(
  schedule: RobfigSchedule & { kind: 'spec' },
  after: Date,
  timeZone: string,
): Date | null {
  const wall = (t: number) => wallOf(t, timeZone);
  const dayMatches = (w: Wall) => {
    const domMatch = schedule.dom.has(w.day);
    const dowMatch = schedule.dow.has(w.weekday);
    return schedule.domStar || schedule.dowStar ? domMatch && dowMatch : domMatch || dowMatch;
  };
  // Start at the upcoming second.
  let t = Math.floor(after.getTime() / 1000) * 1000 + 1000;
  let added = false;
  const yearLimit = wall(t).year + 5;
  wrap: for (;;) {
    let w = wall(t);
    if (w.year > yearLimit) return null;
    while (!schedule.month.has(w.month)) {
      if (!added) {
        added = true;
        t = goDate(w.year, w.month, 1, 0, 0, 0, timeZone);
        w = wall(t);
      }
      t = goDate(w.year, w.month + 1, w.day, w.hour, w.minute, w.second, timeZone);
      w = wall(t);
      if (w.month === 1) continue wrap;
    }
    while (!dayMatches(w)) {
      if (!added) {
        added = true;
        t = goDate(w.year, w.month, w.day, 0, 0, 0, timeZone);
        w = wall(t);
      }
      t = goDate(w.year, w.month, w.day + 1, w.hour, w.minute, w.second, timeZone);
      w = wall(t);
      // Midnight that a DST change moved: back to it.
      if (w.hour !== 0) {
        t += (w.hour > 12 ? 24 - w.hour : -w.hour) * 3_600_000;
        w = wall(t);
      }
      if (w.day === 1) continue wrap;
    }
    while (!schedule.hour.has(w.hour)) {
      if (!added) {
        added = true;
        t = goDate(w.year, w.month, w.day, w.hour, 0, 0, timeZone);
      }
      t += 3_600_000;
      w = wall(t);
      if (w.hour === 0) continue wrap;
    }
    while (!schedule.minute.has(w.minute)) {
      if (!added) {
        added = true;
        t = Math.floor(t / 60_000) * 60_000;
      }
      t += 60_000;
      w = wall(t);
      if (w.minute === 0) continue wrap;
    }
    // The standard parser's second field is 0.
    while (w.second !== 0) {
      if (!added) added = true;
      t += 1000;
      w = wall(t);
      if (w.second === 0) continue wrap;
    }
    return new Date(t);
  }
}
