import { CronExpressionParser } from 'cron-parser';
import cronstrue from 'cronstrue';
import { instantOfWallTime, wallTimeOf } from './timezone';

/** The macros that Kubernetes CronJobs accept too, so a schedule means the same in both runtimes. */
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

export type CronCheck = { valid: true; fields: string } | { valid: false; error: string };

/**
 * Validates a five-field cron expression (minute hour day-of-month month day-of-week) or a macro.
 * The error names what is wrong, e.g. an out-of-range minute.
 */
export function checkCron(expression: string): CronCheck {
  const trimmed = expression.trim();
  if (trimmed.length === 0) return { valid: false, error: 'cron expression is empty' };
  const macro = MACROS[trimmed.toLowerCase()];
  if (trimmed.startsWith('@') && !macro) {
    return { valid: false, error: `unknown macro ${trimmed}: use one of ${Object.keys(MACROS).join(', ')}` };
  }
  const fields = macro ?? trimmed.split(/\s+/).join(' ');
  const count = fields.split(' ').length;
  if (count !== 5) {
    return {
      valid: false,
      error: `cron expression must have 5 fields (minute hour day-of-month month day-of-week), got ${count}`,
    };
  }
  try {
    // next() too: an expression like "0 0 30 2 *" parses but never fires.
    CronExpressionParser.parse(fields, { tz: 'UTC' }).next();
  } catch (error) {
    return { valid: false, error: describeParserError(error, fields) };
  }
  return { valid: true, fields };
}

const FIELD_NAMES = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'];
const FIELD_RANGES = ['0-59', '0-23', '1-31', '1-12', '0-7'];

function describeParserError(error: unknown, fields: string): string {
  const message = error instanceof Error ? error.message : String(error);
  // cron-parser says "Constraint error, got value 60 expected range 0-59"; name the field too.
  const range = /expected range (\d+-\d+)/.exec(message)?.[1];
  const index = range ? FIELD_RANGES.indexOf(range) : -1;
  if (index >= 0) {
    const value = /got value (\S+)/.exec(message)?.[1] ?? fields.split(' ')[index];
    return `${FIELD_NAMES[index]} value ${value} is out of range ${range}`;
  }
  return message;
}

/** Plain-language description, e.g. "At 02:30 AM". */
export function describeCron(fields: string): string {
  return cronstrue.toString(fields, { verbose: false });
}

/**
 * The first fire time strictly after `after`, for a validated expression in `timeZone`.
 * Cron fields are matched against the wall clock, and daylight saving is handled as Vixie cron
 * does: a wall time that a fall-back repeats fires once (at its first occurrence), and wall times
 * that a spring-forward skips fire once, right after the jump.
 */
export function nextFireTime(fields: string, timeZone: string, after: Date): Date {
  const afterMs = after.getTime();
  // Iterate over wall times with the zone-less parser, then map each back to an instant.
  const wallTimes = CronExpressionParser.parse(fields, {
    tz: 'UTC',
    currentDate: new Date(wallTimeOf(afterMs, timeZone)),
  });
  for (let guard = 0; guard < 10_000; guard++) {
    const instant = instantOfWallTime(wallTimes.next().getTime(), timeZone);
    // A wall time already passed earlier (the repeated hour of a fall-back) is not fired again.
    if (instant > afterMs) return new Date(instant);
  }
  throw new Error(`no fire time found for "${fields}" in ${timeZone}`);
}
