import { CronExpressionParser } from 'cron-parser';
import { fireTimesAfter } from './cron';
import { instantOfWallTime, wallTimeOf } from './timezone';

/** The fire times of a schedule over a stretch of time, told without listing them. */
export interface FireTimeSummary {
  count: number;
  /** The first and the last of them; null when there are none. */
  first: Date | null;
  last: Date | null;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Wall days looked at together: a zone changes its offset at most twice a year (and not twice a week). */
const CHUNK_DAYS = 7;

/** What a five-field schedule fires on: the days it matches, and the times of day on each. */
interface DayShape {
  /** Milliseconds after midnight (wall clock) of every fire time of a matching day, ascending. */
  timesOfDay: number[];
  matchesDay(wallDayMs: number): boolean;
}

const shapes = new Map<string, DayShape | null>();
const MAX_SHAPES = 1000;

/**
 * The fire times of `fields` (a validated expression, checkCron) in `timeZone` after `after` and
 * at or before `until`: how many, the first and the last, exactly as `fireTimesAfter` lists them
 * (the DST rule of `nextFireTime` included), at a cost that grows with the number of days rather
 * than of fire times. A long gap of a job firing every minute is 1,440 fire times a day, some 50 µs
 * each to list; here a week of days whose zone keeps one offset costs a few calls of Intl, and only
 * the days a zone changes its offset are listed one fire time at a time.
 */
export function summarizeFireTimes(
  fields: string,
  timeZone: string,
  after: Date,
  until: Date,
): FireTimeSummary {
  const summary: FireTimeSummary = { count: 0, first: null, last: null };
  const afterMs = after.getTime();
  const untilMs = until.getTime();
  if (untilMs <= afterMs) return summary;
  const shape = dayShapeOf(fields);
  if (!shape) return listed(fields, timeZone, afterMs, untilMs, summary);
  for (const day of daysOf(timeZone, afterMs, untilMs, 'forward')) {
    if (!shape.matchesDay(day.wallDay)) continue;
    if (day.offset === null) {
      for (const time of listedDay(fields, timeZone, day.wallDay, afterMs, untilMs)) note(summary, time);
      continue;
    }
    const dayStart = day.wallDay - day.offset;
    const from = firstAbove(shape.timesOfDay, afterMs - dayStart);
    const to = firstAbove(shape.timesOfDay, untilMs - dayStart);
    if (to <= from) continue;
    if (summary.first === null) summary.first = new Date(dayStart + shape.timesOfDay[from]!);
    summary.count += to - from;
    summary.last = new Date(dayStart + shape.timesOfDay[to - 1]!);
  }
  return summary;
}

/**
 * The newest fire times of the schedule after `after` and at or before `until`, at most `max`,
 * newest first: the days before `until` read as `summarizeFireTimes` reads them, backwards, so that
 * the newest of a stretch of months cost about `max` fire times, each a sum.
 */
export function newestFireTimes(
  fields: string,
  timeZone: string,
  after: Date,
  until: Date,
  max: number,
): Date[] {
  const afterMs = after.getTime();
  const untilMs = until.getTime();
  const found: Date[] = [];
  if (max <= 0 || untilMs <= afterMs) return found;
  const shape = dayShapeOf(fields);
  if (!shape) return newestByListing(fields, timeZone, afterMs, untilMs, max);
  for (const day of daysOf(timeZone, afterMs, untilMs, 'backward')) {
    if (!shape.matchesDay(day.wallDay)) continue;
    let times: number[];
    if (day.offset === null) times = listedDay(fields, timeZone, day.wallDay, afterMs, untilMs);
    else {
      const dayStart = day.wallDay - day.offset;
      const from = firstAbove(shape.timesOfDay, afterMs - dayStart);
      const to = firstAbove(shape.timesOfDay, untilMs - dayStart);
      times = shape.timesOfDay.slice(from, Math.max(from, to)).map((time) => dayStart + time);
    }
    for (let k = times.length - 1; k >= 0; k--) {
      found.push(new Date(times[k]!));
      if (found.length >= max) return found;
    }
  }
  return found;
}

/** A wall day and the offset (wall minus instant) it keeps throughout; null: it changes that day. */
interface WallDay {
  wallDay: number;
  offset: number | null;
}

/**
 * The wall days from the one `afterMs` shows to the one `untilMs` shows, in `direction`, each with
 * its offset when it keeps one: read a week at a time (a zone changes its offset at most twice a
 * year), and a day at a time in a week where it changes.
 */
function* daysOf(
  timeZone: string,
  afterMs: number,
  untilMs: number,
  direction: 'forward' | 'backward',
): Generator<WallDay> {
  const firstDay = startOfDay(wallTimeOf(afterMs, timeZone));
  const lastDay = startOfDay(wallTimeOf(untilMs, timeZone));
  const week = CHUNK_DAYS * DAY_MS;
  const chunks: [number, number][] = [];
  for (let chunk = firstDay; chunk <= lastDay; chunk += week)
    chunks.push([chunk, Math.min(chunk + week, lastDay + DAY_MS)]);
  if (direction === 'backward') chunks.reverse();
  for (const [start, end] of chunks) {
    const offset = steadyOffset(start, end, timeZone);
    const days: number[] = [];
    for (let day = start; day < end; day += DAY_MS) days.push(day);
    if (direction === 'backward') days.reverse();
    for (const wallDay of days) {
      yield { wallDay, offset: offset ?? steadyOffset(wallDay, wallDay + DAY_MS, timeZone) };
    }
  }
}

/** The newest fire times by listing a window before `untilMs`, widened until it holds `max` of them. */
function newestByListing(
  fields: string,
  timeZone: string,
  afterMs: number,
  untilMs: number,
  max: number,
): Date[] {
  // A five-field schedule fires at most once a minute.
  let span = (max + 1) * MINUTE_MS;
  for (;;) {
    const from = Math.max(afterMs, untilMs - span);
    const found: Date[] = [];
    try {
      for (const time of fireTimesAfter(fields, timeZone, new Date(from))) {
        if (time.getTime() > untilMs) break;
        found.push(time);
      }
    } catch {
      // A schedule that stops firing: what was found is all there is.
    }
    if (found.length >= max || from === afterMs) return found.slice(-max).reverse();
    span *= 4;
  }
}

/** Counts by listing them: what the summary cannot read in days (a form it does not know). */
function listed(
  fields: string,
  timeZone: string,
  afterMs: number,
  untilMs: number,
  summary: FireTimeSummary,
): FireTimeSummary {
  try {
    for (const time of fireTimesAfter(fields, timeZone, new Date(afterMs))) {
      if (time.getTime() > untilMs) break;
      note(summary, time.getTime());
    }
  } catch {
    // A schedule that stops firing.
  }
  return summary;
}

/**
 * The offset (wall minus instant) that holds over the wall days [fromDay, toDay), or null when the
 * zone changes its offset within them (or at their edges).
 */
function steadyOffset(fromDay: number, toDay: number, timeZone: string): number | null {
  const start = instantOfWallTime(fromDay, timeZone);
  const end = instantOfWallTime(toDay, timeZone);
  if (end - start !== toDay - fromDay) return null;
  const offset = fromDay - start;
  if (wallTimeOf(start, timeZone) !== fromDay || wallTimeOf(end, timeZone) !== toDay) return null;
  if (wallTimeOf(end - 1, timeZone) !== toDay - 1) return null;
  return offset;
}

/** Fire times of whole days whose offset changes, listed once per schedule, zone and day. */
const listedDays = new Map<string, number[]>();
const MAX_LISTED_DAYS = 1000;

/**
 * The fire times (ms) of a wall day whose offset changes (daylight saving) within (afterMs,
 * untilMs], listed as the judge's walk lists them; a whole day's are kept, for the next stretch or
 * page of a job on the same schedule in the same zone.
 */
function listedDay(
  fields: string,
  timeZone: string,
  wallDay: number,
  afterMs: number,
  untilMs: number,
): number[] {
  const key = `${fields}\u0000${timeZone}\u0000${wallDay}`;
  let times = listedDays.get(key);
  if (!times) {
    const dayStart = instantOfWallTime(wallDay, timeZone);
    const nextDayStart = instantOfWallTime(wallDay + DAY_MS, timeZone);
    times = [];
    try {
      for (const time of fireTimesAfter(fields, timeZone, new Date(dayStart - 1))) {
        if (time.getTime() >= nextDayStart) break;
        times.push(time.getTime());
      }
    } catch {
      // A schedule that stops firing.
    }
    if (listedDays.size >= MAX_LISTED_DAYS) listedDays.clear();
    listedDays.set(key, times);
  }
  return times.filter((time) => time > afterMs && time <= untilMs);
}

function note(summary: FireTimeSummary, time: number): void {
  summary.count++;
  if (summary.first === null) summary.first = new Date(time);
  summary.last = new Date(time);
}

/** The index of the first value above `bound` in an ascending array. */
function firstAbove(values: number[], bound: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (values[middle]! > bound) high = middle;
    else low = middle + 1;
  }
  return low;
}

function startOfDay(wallMs: number): number {
  return Math.floor(wallMs / DAY_MS) * DAY_MS;
}

/**
 * The days and times of day of a five-field schedule, read from cron-parser's own fields and with
 * its rule for day-of-month and day-of-week (either when both are restricted, else both). Null for
 * a form the shape does not know (L, #): its fire times are listed instead.
 */
function dayShapeOf(fields: string): DayShape | null {
  if (shapes.has(fields)) return shapes.get(fields)!;
  let shape: DayShape | null = null;
  try {
    const parsed = CronExpressionParser.parse(fields, { tz: 'UTC' }).fields;
    const { second, minute, hour, dayOfMonth, month, dayOfWeek } = parsed;
    if (!dayOfMonth.hasLastChar && !dayOfWeek.hasLastChar && !dayOfWeek.nthDay) {
      const timesOfDay: number[] = [];
      for (const h of hour.values as number[])
        for (const m of minute.values as number[])
          for (const s of second.values as number[]) timesOfDay.push(((h * 60 + m) * 60 + s) * 1000);
      timesOfDay.sort((a, b) => a - b);
      const days = new Set(dayOfMonth.values as number[]);
      const months = new Set(month.values as number[]);
      const weekdays = new Set((dayOfWeek.values as number[]).map((d) => d % 7));
      const domRestricted = !dayOfMonth.isWildcard;
      const dowRestricted = !dayOfWeek.isWildcard;
      shape = {
        timesOfDay,
        matchesDay(wallDayMs) {
          const date = new Date(wallDayMs);
          if (!months.has(date.getUTCMonth() + 1)) return false;
          const dom = days.has(date.getUTCDate());
          const dow = weekdays.has(date.getUTCDay());
          if (domRestricted && dowRestricted) return dom || dow;
          if (!dowRestricted) return dom;
          return dow;
        },
      };
    }
  } catch {
    shape = null;
  }
  if (shapes.size >= MAX_SHAPES) shapes.clear();
  shapes.set(fields, shape);
  return shape;
}
