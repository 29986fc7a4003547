/**
 * Wall-clock arithmetic in IANA time zones, built on Intl only. A "wall time" is a local date and
 * time written as milliseconds since the epoch as if the zone were UTC; it has no offset of its own.
 */

const DAY_MS = 86_400_000;
/** 400 Gregorian years: 146,097 days, a whole number of weeks. */
const GREGORIAN_CYCLE_MS = 146_097 * DAY_MS;
/** 0001-01-01T00:00:00Z. */
const FIRST_OF_OUR_ERA_MS = -62_135_596_800_000;

const WALL_TIME_PARTS: Intl.DateTimeFormatOptions = {
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
};

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, ...WALL_TIME_PARTS });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True when `name` is a time zone that this runtime's Intl knows (IANA names, `UTC`). */
export function isValidTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 100) return false;
  try {
    formatterFor(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * `name` as the IANA database spells it, where it differs only in case (`europe/berlin` is
 * `Europe/Berlin`, `utc` is `UTC`); any other name unchanged. Intl takes a zone's name in any case,
 * but Kubernetes reads it as a file name of the time zone database: the API server refuses a
 * CronJob whose `timeZone` is not spelled exactly. Aliases stay as written (`Etc/UTC`).
 */
export function ianaSpelling(name: string): string {
  if (!isValidTimeZone(name)) return name;
  const resolved = formatterFor(name).resolvedOptions().timeZone;
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

/** The local wall time of `instantMs` in `timeZone`. Milliseconds are carried over unchanged. */
export function wallTimeOf(instantMs: number, timeZone: string): number {
  // The default zone keeps no offset: its wall time is the instant, without a call of Intl.
  if (timeZone === 'UTC') return instantMs;
  const parts: Record<string, number> = {};
  // Intl writes years before 1 as years of an era (1 BC is year 0): only those instants ask for it.
  const beforeOurEra = instantMs < FIRST_OF_OUR_ERA_MS + 2 * DAY_MS;
  let bc = false;
  for (const part of (beforeOurEra ? eraFormatterFor(timeZone) : formatterFor(timeZone)).formatToParts(
    new Date(instantMs),
  )) {
    if (part.type === 'era') bc = part.value === 'BC';
    else if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const year = bc ? 1 - parts.year! : parts.year!;
  const wholeSeconds = utcWallTime(
    year,
    parts.month! - 1,
    parts.day!,
    parts.hour!,
    parts.minute!,
    parts.second!,
  );
  return wholeSeconds + (((instantMs % 1000) + 1000) % 1000);
}

/**
 * `Date.UTC` for any year: it reads years 0 to 99 as 1900 to 1999, so those are counted from the
 * same day 400 years later (the Gregorian calendar repeats every 400 years, weekdays included).
 * Months, days and hours out of range carry over, as in `Date.UTC`.
 */
export function utcWallTime(
  year: number,
  monthIndex: number,
  day: number,
  hour: number,
  minute: number,
  second = 0,
): number {
  if (year >= 0 && year < 100) {
    return Date.UTC(year + 400, monthIndex, day, hour, minute, second) - GREGORIAN_CYCLE_MS;
  }
  return Date.UTC(year, monthIndex, day, hour, minute, second);
}

const eraFormatters = new Map<string, Intl.DateTimeFormat>();

function eraFormatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = eraFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, ...WALL_TIME_PARTS, era: 'short' });
    eraFormatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Offset of `timeZone` from UTC at `instantMs`, in milliseconds (positive east of Greenwich). */
function offsetAt(instantMs: number, timeZone: string): number {
  return wallTimeOf(instantMs, timeZone) - instantMs;
}

/**
 * The instant at which the wall clock of `timeZone` shows `wallMs`:
 * - shown once: that instant;
 * - shown twice (clocks fall back): the first of the two;
 * - never shown (clocks spring forward over it): the instant of the jump, the first one after the gap.
 */
export function instantOfWallTime(wallMs: number, timeZone: string): number {
  if (timeZone === 'UTC') return wallMs;
  const offsetBefore = offsetAt(wallMs - DAY_MS, timeZone);
  const offsetAfter = offsetAt(wallMs + DAY_MS, timeZone);
  const matches = [wallMs - offsetBefore, wallMs - offsetAfter].filter(
    (instant) => wallTimeOf(instant, timeZone) === wallMs,
  );
  if (matches.length > 0) return Math.min(...matches);

  // In a gap: search for the transition between an instant before it and one after it.
  let before = wallMs - offsetAfter;
  let after = wallMs - offsetBefore;
  while (after - before > 1000) {
    const middle = Math.floor((before + after) / 2);
    if (offsetAt(middle, timeZone) === offsetBefore) before = middle;
    else after = middle;
  }
  return Math.ceil(after / 1000) * 1000;
}
