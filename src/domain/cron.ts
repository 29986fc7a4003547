import { CronExpressionParser } from 'cron-parser';
import cronstrue from 'cronstrue';
import { parseCronSyntax } from './cronSyntax';
import { instantOfWallTime, wallTimeOf } from './timezone';

export type CronCheck = { valid: true; fields: string; nickname?: string } | { valid: false; error: string };

/**
 * Checks already made, by expression: an answer depends on the expression alone, and the local
 * runtime checks every job's schedule again whenever any job changes (costing a parse and a search
 * for the next fire time each, some 200 µs: a fifth of a second per change with 1,000 jobs).
 */
const checked = new Map<string, CronCheck>();
const MAX_CHECKED = 10_000;

/**
 * Validates a cron expression in the dialect of ./cronSyntax (five fields or a nickname) and gives
 * its canonical fields, which every other function here expects. The error names what is wrong,
 * e.g. an out-of-range minute or a form such as H or L that is not supported.
 */
export function checkCron(expression: string): CronCheck {
  let check = checked.get(expression);
  if (!check) {
    check = Object.freeze(checkUncached(expression));
    if (checked.size >= MAX_CHECKED) checked.clear();
    checked.set(expression, check);
  }
  return check;
}

function checkUncached(expression: string): CronCheck {
  const syntax = parseCronSyntax(expression);
  if (!syntax.valid) return syntax;
  try {
    // next() too: an expression like "0 0 30 2 *" parses but never fires.
    CronExpressionParser.parse(syntax.fields, { tz: 'UTC' }).next();
  } catch (error) {
    return { valid: false, error: describeParserError(error) };
  }
  return syntax;
}

function describeParserError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/day of month/i.test(message)) {
    return 'day-of-month and month never meet (such as 30 February): the schedule would never fire';
  }
  return `cron expression is not supported: ${message}`;
}

/**
 * Plain-language description, e.g. "At 02:30 AM". cronstrue throws plain strings on input it does
 * not know; a valid schedule must never fail to display, so fall back to the fields themselves.
 */
export function describeCron(fields: string): string {
  try {
    return cronstrue.toString(fields, { verbose: false });
  } catch {
    return `cron schedule ${fields}`;
  }
}

/**
 * The first fire time strictly after `after`, for a validated expression in `timeZone`.
 * Cron fields are matched against the wall clock, and daylight saving is handled as Vixie cron
 * does: a wall time that a fall-back repeats fires once (at its first occurrence), and wall times
 * that a spring-forward skips fire once, right after the jump.
 */
export function nextFireTime(fields: string, timeZone: string, after: Date): Date {
  const afterMs = after.getTime();
  // The fire times of (fields, zone) are fixed: the one found after A is the next after any time
  // from A until it. A thousand jobs on one schedule cost one search, not a thousand (200 µs each).
  const key = `${fields}\u0000${timeZone}`;
  const known = foundFireTimes.get(key);
  if (known && known.afterMs <= afterMs && afterMs < known.nextMs) return new Date(known.nextMs);
  const next = fireTimesAfter(fields, timeZone, after).next().value.getTime();
  if (foundFireTimes.size >= MAX_CHECKED) foundFireTimes.clear();
  foundFireTimes.set(key, { afterMs, nextMs: next });
  return new Date(next);
}

/** The last fire time found per (fields, zone), and the time it was searched from. */
const foundFireTimes = new Map<string, { afterMs: number; nextMs: number }>();

/**
 * The fire times strictly after `after`, in order, without end: what `nextFireTime` gives again
 * and again, from one pass over the wall times (listing many costs little more than one each).
 */
export function* fireTimesAfter(fields: string, timeZone: string, after: Date): Generator<Date, never> {
  // Iterate over wall times with the zone-less parser, then map each back to an instant.
  const afterWall = wallTimeOf(after.getTime(), timeZone);
  const wallTimes = CronExpressionParser.parse(fields, { tz: 'UTC', currentDate: new Date(afterWall) });
  return yield* fireTimesOfWallTimes(() => wallTimes.next().getTime(), fields, timeZone, after, afterWall);
}

/**
 * The fire times strictly after `after` (whose wall time is `afterWall`) of a schedule whose
 * matching wall times, in order from there, `nextWall` gives: each mapped to its instant in
 * `timeZone` by the DST rule of `nextFireTime`.
 */
export function* fireTimesOfWallTimes(
  nextWall: () => number,
  fields: string,
  timeZone: string,
  after: Date,
  afterWall: number,
): Generator<Date, never> {
  let lastMs = after.getTime();
  let lastWall = afterWall;
  for (;;) {
    let found = false;
    for (let guard = 0; guard < 10_000; guard++) {
      const wall = nextWall();
      // Wall times up to the last fire time's own are behind: those a spring-forward skipped
      // fired at the jump, once for all of them.
      if (wall <= lastWall) continue;
      const instant = instantOfWallTime(wall, timeZone);
      // A wall time already passed earlier (the repeated hour of a fall-back) is not fired again.
      if (instant > lastMs) {
        lastMs = instant;
        lastWall = wallTimeOf(instant, timeZone);
        found = true;
        break;
      }
    }
    if (!found) throw new Error(`no fire time found for "${fields}" in ${timeZone}`);
    yield new Date(lastMs);
  }
}
