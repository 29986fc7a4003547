/**
 * The cron dialect Crondeck accepts, checked before any library sees it. Each runtime has its own
 * parser (cron-parser locally, robfig/cron in the Kubernetes CronJob controller, cronstrue for the
 * description), and they disagree on the edges: H is random per parse in cron-parser, L/W/# exist in
 * one and not the other, 7 is Sunday in one and an error in the other. So the grammar here is the
 * part all of them read the same way, and the canonical form it returns is written so that each
 * library gives it the same meaning.
 */

/** Nicknames that robfig/cron (and so Kubernetes) accepts too; keys are lower case. */
const CRON_NICKNAMES: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Longer than any meaningful expression (cron-parser refuses past 1024 characters too). */
const MAX_CRON_LENGTH = 1024;

type FieldSpec = {
  name: string;
  /** What a user should pick instead of H: "pick a minute". */
  unit: string;
  min: number;
  /** Highest value written; day-of-week allows 7 for Sunday. */
  max: number;
  names?: readonly string[];
};

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', unit: 'a minute', min: 0, max: 59 },
  { name: 'hour', unit: 'an hour', min: 0, max: 23 },
  { name: 'day-of-month', unit: 'a day of the month', min: 1, max: 31 },
  { name: 'month', unit: 'a month', min: 1, max: 12, names: MONTHS },
  { name: 'day-of-week', unit: 'a day of the week', min: 0, max: 7, names: WEEKDAYS },
];
const DAY_OF_MONTH = 2;
const DAY_OF_WEEK = 4;

export type CronSyntax =
  | {
      valid: true;
      /** Five canonical fields that cron-parser, cronstrue and robfig/cron read alike. */
      fields: string;
      /** The lower-case nickname when one was written (kept for the CronJob schedule). */
      nickname?: string;
    }
  | { valid: false; error: string };

class CronSyntaxError extends Error {}

/** Checks an expression against the accepted dialect and returns its canonical fields. */
export function parseCronSyntax(expression: string): CronSyntax {
  try {
    return canonicalise(expression);
  } catch (error) {
    if (error instanceof CronSyntaxError) return { valid: false, error: error.message };
    throw error;
  }
}

function fail(message: string): never {
  throw new CronSyntaxError(message);
}

function canonicalise(expression: string): CronSyntax {
  const trimmed = expression.trim();
  if (trimmed.length === 0) fail('cron expression is empty');
  if (trimmed.length > MAX_CRON_LENGTH) fail(`cron expression is longer than ${MAX_CRON_LENGTH} characters`);
  if (/^(CRON_)?TZ=/i.test(trimmed)) {
    fail('TZ= and CRON_TZ= are not supported in the schedule: set the timezone field instead');
  }
  if (trimmed.startsWith('@')) return nickname(trimmed);
  const parts = trimmed.split(/\s+/);
  if (parts.length === 6) fail('6 fields (a seconds field) are not supported: use 5 fields, minute first');
  if (parts.length === 7) fail('7 fields (seconds and year) are not supported: use 5 fields, minute first');
  if (parts.length !== 5) {
    fail(
      `cron expression must have 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`,
    );
  }
  return {
    valid: true,
    fields: parts.map((part, index) => canonicalField(part, FIELDS[index]!, index)).join(' '),
  };
}

function nickname(trimmed: string): CronSyntax {
  const word = (trimmed.split(/\s+/)[0] ?? '').toLowerCase();
  if (word === '@reboot')
    fail('@reboot is not supported: jobs run on a schedule, not when the service starts');
  if (word === '@every') {
    fail(
      '@every is not supported: write the interval as a cron expression, e.g. */15 * * * * or 0 */2 * * *',
    );
  }
  const fields = CRON_NICKNAMES[word];
  if (!fields || word !== trimmed.toLowerCase()) {
    fail(`unknown macro ${trimmed}: use one of ${Object.keys(CRON_NICKNAMES).join(', ')}`);
  }
  return { valid: true, fields, nickname: word };
}

type Item = { values: number[]; text: string; star: boolean; needsExpansion: boolean };

function canonicalField(raw: string, spec: FieldSpec, index: number): string {
  if (raw.split(',').some((item) => item === '')) fail(`${spec.name} field ${raw} has an empty list item`);
  const items = raw.split(',').map((item) => canonicalItem(item, spec, index));
  // A bare * (or ?) anywhere makes the whole field unrestricted, as robfig/cron reads it.
  if (items.some((item) => item.star)) return '*';
  const seen = new Set<number>();
  let overlaps = false;
  for (const item of items) {
    for (const value of item.values) {
      if (seen.has(value)) overlaps = true;
      seen.add(value);
    }
  }
  // cron-parser refuses a value listed twice and robfig refuses day-of-week 7: spell such fields out.
  if (overlaps || items.some((item) => item.needsExpansion)) return compress([...seen].sort((a, b) => a - b));
  return items.map((item) => item.text).join(',');
}

function canonicalItem(item: string, spec: FieldSpec, index: number): Item {
  refuseSpecialForms(item, spec);
  const match = /^([^/-]+)(?:-([^/-]+))?(?:\/([^/-]+))?$/.exec(item);
  if (!match) fail(`${spec.name} field has an item ${item} that is not a value, a range or a step`);
  const [, low = '', high, stepText] = match;
  const step = stepText === undefined ? 1 : number(stepText, spec, 'step');
  if (step < 1) fail(`${spec.name} step ${stepText} must be at least 1`);
  // A wider step only ever hits the start; refusing it keeps absurd numbers out of every parser.
  if (step > spec.max - spec.min + 1) {
    fail(`${spec.name} step ${stepText} is larger than the ${spec.name} range ${spec.min}-${spec.max}`);
  }
  const isDayOfWeek = index === DAY_OF_WEEK;
  // Day-of-week ranges stop at 6 for * and N/step: robfig/cron knows no 7.
  const top = isDayOfWeek ? 6 : spec.max;
  if (low === '*' || low === '?') {
    if (high !== undefined)
      fail(`${spec.name} field has an item ${item} that is not a value, a range or a step`);
    if (step === 1) return { values: range(spec.min, top, 1), text: '*', star: true, needsExpansion: false };
    // A stepped * restricts the day (either day field matching fires): write it as a range so that
    // no library takes it for an unrestricted * (robfig/cron's star bit for */n changed between versions).
    const isDayField = index === DAY_OF_MONTH || isDayOfWeek;
    return {
      values: range(spec.min, top, step),
      text: isDayField ? `${spec.min}-${top}/${step}` : `*/${step}`,
      star: false,
      needsExpansion: isDayOfWeek,
    };
  }
  const start = value(low, spec);
  const end = high === undefined ? (stepText === undefined ? start : top) : value(high, spec);
  if (start > end) {
    fail(
      `${spec.name} range ${low}-${high} wraps around, which is not supported: write ${start}-${top},${spec.min}-${end}`,
    );
  }
  const values = range(start, end, step).map((v) => (isDayOfWeek && v === 7 ? 0 : v));
  const text = `${token(low, start, spec)}${end === start && stepText === undefined ? '' : `-${high === undefined ? end : token(high, end, spec)}`}${step === 1 ? '' : `/${step}`}`;
  return { values, text, star: false, needsExpansion: isDayOfWeek && (end === 7 || step > 1) };
}

/** The forms other cron dialects have, each refused by name so the user knows what to change. */
function refuseSpecialForms(item: string, spec: FieldSpec): void {
  if (item.includes('#')) fail(`# (nth weekday of the month) is not supported in ${spec.name}`);
  // Month and weekday names contain H, L and W (THU, JUL, WED): look only at what is not a name.
  const withoutNames = spec.names
    ? item.replace(/[a-z]{3}/gi, (word) => (isName(word, spec) ? '' : word))
    : item;
  if (/H/i.test(withoutNames)) fail(`H (hashed) is not supported in ${spec.name}: pick ${spec.unit}`);
  if (/L/i.test(withoutNames)) fail(`L (last) is not supported in ${spec.name}`);
  if (/W/i.test(withoutNames)) fail(`W (nearest weekday) is not supported in ${spec.name}`);
}

function isName(word: string, spec: FieldSpec): boolean {
  return spec.names?.includes(word.toUpperCase()) ?? false;
}

function value(text: string, spec: FieldSpec): number {
  if (isName(text, spec)) return spec.names!.indexOf(text.toUpperCase()) + spec.min;
  const n = number(text, spec, 'value');
  if (n < spec.min || n > spec.max)
    fail(`${spec.name} value ${text} is out of range ${spec.min}-${spec.max}`);
  return n;
}

function number(text: string, spec: FieldSpec, what: string): number {
  if (!/^[0-9]+$/.test(text)) {
    const hint = spec.names ? ` or a name such as ${spec.names[1]}` : '';
    fail(`${spec.name} ${what} ${text} is not a number${what === 'value' ? hint : ''}`);
  }
  return text.length > 6 ? Number.MAX_SAFE_INTEGER : Number(text);
}

/** Names stay names (cronstrue describes them), in upper case; numbers lose leading zeros. */
function token(text: string, parsed: number, spec: FieldSpec): string {
  return isName(text, spec) ? text.toUpperCase() : String(parsed);
}

function range(start: number, end: number, step: number): number[] {
  const values: number[] = [];
  for (let v = start; v <= end; v += step) values.push(v);
  return values;
}

/** 1,2,3,5,6 → 1-3,5,6: only runs of three or more become ranges, which read better described. */
function compress(values: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < values.length;) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j]! + 1) j++;
    if (j - i >= 2) {
      parts.push(`${values[i]}-${values[j]}`);
      i = j + 1;
    } else {
      parts.push(`${values[i]}`);
      i += 1;
    }
  }
  return parts.join(',');
}
