import { ApiError } from '../errors';

const MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

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
      frac && frac[1]!.length > 6
        ? [value.slice(26), 'Z07:00']
        : [value.length > 19 ? value.slice(19) : value, '.000000'];
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
