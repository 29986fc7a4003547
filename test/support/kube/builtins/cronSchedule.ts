/**
 * The schedule checks of the CronJob validation (robfig/cron's standard parser with descriptors),
 * with its error texts (08 #2, #3, #6, #8). The CronJob controller walks schedules with robfig's
 * own Next (controllers/cronjob.ts).
 */
const FIELDS: { min: number; max: number; names?: string[] }[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  {
    min: 1,
    max: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  { min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

function num(s: string, f: (typeof FIELDS)[number]): number {
  const idx = f.names?.indexOf(s.toLowerCase()) ?? -1;
  if (idx >= 0) return idx + f.min;
  if (!/^\d+$/.test(s))
    throw new Error(`failed to parse int from ${s}: strconv.Atoi: parsing "${s}": invalid syntax`);
  return Number(s);
}

function parseField(expr: string, f: (typeof FIELDS)[number]): Set<number> {
  const out = new Set<number>();
  for (const part of expr.split(',')) {
    const [range, stepText] = part.split('/') as [string, string | undefined];
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') {
      lo = f.min;
      hi = f.max;
    } else {
      const [a, b] = range.split('-') as [string, string | undefined];
      lo = num(a, f);
      hi = b === undefined ? (stepText ? f.max : lo) : num(b, f);
    }
    const step = stepText === undefined ? 1 : Number(stepText);
    if (lo < f.min) throw new Error(`beginning of range (${lo}) below minimum (${f.min}): ${part}`);
    if (hi > f.max) throw new Error(`end of range (${hi}) above maximum (${f.max}): ${part}`);
    if (lo > hi) throw new Error(`beginning of range (${lo}) beyond end of range (${hi}): ${part}`);
    if (!(step > 0)) throw new Error(`step of range should be a positive number: ${part}`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

export interface Schedule {
  minute: Set<number>;
  hour: Set<number>;
  dom: Set<number>;
  month: Set<number>;
  dow: Set<number>;
  everyMs?: number;
}

/** Returns the parsed schedule or throws with the validation message. */
export function parseSchedule(text: string): Schedule {
  const trimmed = text.trim();
  if (/^@every /.test(trimmed)) {
    const m = /^@every ((?:\d+h)?(?:\d+m)?(?:\d+s)?)$/.exec(trimmed);
    if (!m || !m[1]) throw new Error(`failed to parse duration ${trimmed.slice(7)}`);
    const d = m[1];
    const ms =
      ((Number(/(\d+)h/.exec(d)?.[1] ?? 0) * 60 + Number(/(\d+)m/.exec(d)?.[1] ?? 0)) * 60 +
        Number(/(\d+)s/.exec(d)?.[1] ?? 0)) *
      1000;
    return {
      minute: new Set(),
      hour: new Set(),
      dom: new Set(),
      month: new Set(),
      dow: new Set(),
      everyMs: ms,
    };
  }
  const expanded = MACROS[trimmed] ?? trimmed;
  if (expanded.startsWith('@')) throw new Error(`unrecognized descriptor: ${expanded}`);
  const fields = expanded.split(/\s+/).filter(Boolean);
  if (fields.length !== 5)
    throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, dom, month, dow] = fields.map((f, i) => parseField(f, FIELDS[i]!)) as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  if (dow.has(7)) dow.add(0);
  return { minute, hour, dom, month, dow };
}

/** Wall-clock parts of an instant in a time zone. */
function zonedParts(
  d: Date,
  timeZone: string,
): { y: number; mo: number; d: number; h: number; mi: number; dow: number; offsetMin: number } {
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    weekday: 'short',
  });
  const parts = Object.fromEntries(f.formatToParts(d).map((p) => [p.type, p.value]));
  const y = Number(parts.year);
  const mo = Number(parts.month);
  const day = Number(parts.day);
  const h = Number(parts.hour);
  const mi = Number(parts.minute);
  const dow = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday!);
  const asUtc = Date.UTC(y, mo - 1, day, h, mi);
  const offsetMin = Math.round((asUtc - Math.floor(d.getTime() / 60000) * 60000) / 60000);
  return { y, mo, d: day, h, mi, dow, offsetMin };
}

/** RFC 3339 with the zone's offset (the cronjob-scheduled-timestamp annotation, README). */
export function formatInZone(d: Date, timeZone: string): string {
  const p = zonedParts(d, timeZone);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const sec = pad(d.getUTCSeconds());
  const off = p.offsetMin;
  const zone =
    off === 0
      ? 'Z'
      : `${off > 0 ? '+' : '-'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return `${p.y}-${pad(p.mo)}-${pad(p.d)}T${pad(p.h)}:${pad(p.mi)}:${sec}${zone}`;
}

/**
 * Whether Go's time.LoadLocation finds the zone. Its names are file names, so case matters
 * ("utc" is unknown, 19 #139); ICU matches any case and answers with the canonical spelling, which
 * differs only in case when the name was spelt wrong, or entirely for an alias (US/Eastern).
 */
export function isKnownTimeZone(tz: string): boolean {
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  return canonical === tz || canonical.toLowerCase() !== tz.toLowerCase();
}
