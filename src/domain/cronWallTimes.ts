import { CronExpressionParser } from 'cron-parser';
import { fireTimesOfWallTimes } from './cron';
import { utcWallTime, wallTimeOf } from './timezone';

/**
 * The wall times a cron expression matches, listed by arithmetic on the fields' values rather than
 * by cron-parser's `next()`, which costs 0.2 ms a step for a schedule firing every minute and 6 ms
 * for a yearly one (it searches day by day): a backfill of a thousand yearly slots took seconds of
 * one thread. The values and the day rule are cron-parser's own (its parse, its wildcard flags), so
 * the list is the one its `next()` gives (test/unit/cronWallTimes.test.ts compares them).
 */

const MINUTE_MS = 60_000;
/**
 * The longest a valid expression goes without firing is 8 years (29 February, across 2100): one
 * that matches nothing for far longer never fires (an expression stored before it was refused).
 */
const MAX_SEARCH_YEARS = 50;

interface FieldSets {
  minutes: boolean[];
  hours: boolean[];
  daysOfMonth: boolean[];
  months: boolean[];
  daysOfWeek: boolean[];
  /** Both day fields restricted: a day matches when either does (Vixie cron, cron-parser). */
  eitherDay: boolean;
  domWildcard: boolean;
  dowWildcard: boolean;
}

const parsed = new Map<string, FieldSets>();
const MAX_PARSED = 1000;

function setsOf(fields: string): FieldSets {
  let sets = parsed.get(fields);
  if (!sets) {
    const collection = CronExpressionParser.parse(fields, { tz: 'UTC' }).fields;
    const flags = (size: number, values: readonly (number | string)[], map = (v: number) => v) => {
      const on: boolean[] = new Array<boolean>(size).fill(false);
      for (const value of values) if (typeof value === 'number') on[map(value)] = true;
      return on;
    };
    const domWildcard = collection.dayOfMonth.isWildcard;
    const dowWildcard = collection.dayOfWeek.isWildcard;
    sets = {
      minutes: flags(60, collection.minute.values),
      hours: flags(24, collection.hour.values),
      daysOfMonth: flags(32, collection.dayOfMonth.values),
      months: flags(13, collection.month.values),
      // 7 is Sunday as 0 is.
      daysOfWeek: flags(7, collection.dayOfWeek.values, (v) => v % 7),
      eitherDay: !domWildcard && !dowWildcard,
      domWildcard,
      dowWildcard,
    };
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(fields, sets);
  }
  return sets;
}

function dayMatches(sets: FieldSets, day: number, weekday: number): boolean {
  const dom = sets.daysOfMonth[day]!;
  const dow = sets.daysOfWeek[weekday]!;
  if (sets.eitherDay) return dom || dow;
  if (!sets.dowWildcard) return dow;
  return sets.domWildcard || dom;
}

/**
 * The wall times (milliseconds, the zone's local time written as if it were UTC) that `fields` (a
 * validated expression, checkCron) matches strictly after `afterWall`, in order, without end.
 */
function* cronWallTimesAfter(fields: string, afterWall: number): Generator<number, never> {
  const sets = setsOf(fields);
  let t = (Math.floor(afterWall / MINUTE_MS) + 1) * MINUTE_MS;
  let searchedFrom = new Date(t).getUTCFullYear();
  for (;;) {
    const date = new Date(t);
    const year = date.getUTCFullYear();
    const month = date.getUTCMonth();
    const day = date.getUTCDate();
    const hour = date.getUTCHours();
    if (year - searchedFrom > MAX_SEARCH_YEARS) throw new Error(`no fire time found for "${fields}"`);
    if (!sets.months[month + 1]) {
      t = utcWallTime(year, month + 1, 1, 0, 0);
    } else if (!dayMatches(sets, day, date.getUTCDay())) {
      t = utcWallTime(year, month, day + 1, 0, 0);
    } else if (!sets.hours[hour]) {
      t = utcWallTime(year, month, day, hour + 1, 0);
    } else if (!sets.minutes[date.getUTCMinutes()]) {
      t += MINUTE_MS;
    } else {
      searchedFrom = year;
      yield t;
      t += MINUTE_MS;
    }
  }
}

/**
 * `fireTimesAfter` with the wall times listed here: the same fire times (the same DST rule), at a
 * fraction of the cost, for the long lists a request asks for (a backfill's range).
 */
export function quickFireTimesAfter(fields: string, timeZone: string, after: Date): Generator<Date, never> {
  const afterWall = wallTimeOf(after.getTime(), timeZone);
  const wallTimes = cronWallTimesAfter(fields, afterWall);
  return fireTimesOfWallTimes(() => wallTimes.next().value, fields, timeZone, after, afterWall);
}
