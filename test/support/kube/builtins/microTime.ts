import { ApiError } from '../errors';

const MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/** The layout's elements up to the seconds, as time.Parse reads them. */
const DATE_TIME: Array<[RegExp, string]> = [
  [/^\d{4}/, '2006'],
  [/^-/, '-'],
  [/^\d{2}/, '01'],
  [/^-/, '-'],
  [/^\d{2}/, '02'],
  [/^T/, 'T'],
  [/^\d{2}/, '15'],
  [/^:/, ':'],
  [/^\d{2}/, '04'],
  [/^:/, ':'],
  [/^\d{2}/, '05'],
];

/** Where a value stops fitting `2006-01-02T15:04:05` (10 #14: `cannot parse "soon" as "2006"`). */
function dateTimeMismatch(value: string): [string, string] | undefined {
  let rest = value;
  for (const [re, element] of DATE_TIME) {
    const m = re.exec(rest);
    if (!m) return [rest, element];
    rest = rest.slice(m[0].length);
  }
  return undefined;
}

/**
 * metav1.MicroTime decoding: RFC 3339 with exactly six fraction digits; anything else fails the
 * decode with Go's time.Parse text (10-lease #13). Answers always carry UTC with 6 digits.
 */
export function parseMicroTime(value: unknown, decodePrefix: string): string {
  if (typeof value !== 'string') return value as string;
  if (!MICRO.test(value)) {
    // Go's time.Parse reports the first element of the layout that does not fit.
    const frac = /^.{19}\.(\d+)(.*)$/.exec(value);
    const [rest, layout] =
      dateTimeMismatch(value) ??
      (frac && frac[1]!.length > 6
        ? [value.slice(26), 'Z07:00']
        : [value.length > 19 ? value.slice(19) : value, '.000000']);
    throw new ApiError(
      400,
      'BadRequest',
      `${decodePrefix}: parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse ${JSON.stringify(rest)} as "${layout}"`,
    );
  }
  const micros = value.slice(20, 26);
  const ms = Date.parse(value);
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, `.${micros}Z`);
}
