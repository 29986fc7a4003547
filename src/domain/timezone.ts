/**
 * Wall-clock arithmetic in IANA time zones, built on Intl only. A "wall time" is a local date and
 * time written as milliseconds since the epoch as if the zone were UTC; it has no offset of its own.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
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
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(instantMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wholeSeconds = Date.UTC(
    parts.year!,
    parts.month! - 1,
    parts.day!,
    parts.hour!,
    parts.minute!,
    parts.second!,
  );
  return wholeSeconds + (((instantMs % 1000) + 1000) % 1000);
}

/** Offset of `timeZone` from UTC at `instantMs`, in milliseconds (positive east of Greenwich). */
function offsetAt(instantMs: number, timeZone: string): number {
  return wallTimeOf(instantMs, timeZone) - instantMs;
}

const DAY_MS = 86_400_000;

/**
 * The instant at which the wall clock of `timeZone` shows `wallMs`:
 * - shown once: that instant;
 * - shown twice (clocks fall back): the first of the two;
 * - never shown (clocks spring forward over it): the instant of the jump, the first one after the gap.
 */
export function instantOfWallTime(wallMs: number, timeZone: string): number {
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
