/**
 * resource.Quantity as the API server parses, compares and prints it: exact values (BigInt in
 * nano units), the parse errors it decodes a body with (19 #32), and the canonical form it answers
 * with ("0.5" → "500m", "1024Mi" → "1Gi").
 */

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value in units of 10^-9, rounded away from zero like the server does. */
  nanos: bigint;
  format: Format;
}

const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_ERROR = "unable to parse quantity's suffix";

const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** parseQuantityString: sign, digits before and after the point, and the suffix. */
function split(str: string): { positive: boolean; num: string; denom: string; suffix: string } {
  let pos = 0;
  let positive = true;
  if (str[0] === '-' || str[0] === '+') {
    positive = str[0] === '+';
    pos++;
  }
  const numStart = pos;
  while (isDigit(str[pos])) pos++;
  const num = str.slice(numStart, pos);
  let denom = '';
  if (str[pos] === '.') {
    const denomStart = ++pos;
    while (isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
  }
  const suffixStart = pos;
  while (pos < str.length && 'eEinumkKMGTP'.includes(str[pos]!)) pos++;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (isDigit(str[pos])) pos++;
  if (pos < str.length) throw new Error(QUANTITY_FORMAT_ERROR);
  return { positive, num, denom, suffix: str.slice(suffixStart) };
}

function suffixOf(suffix: string): { base: 2 | 10; exponent: number; format: Format } {
  if (suffix in DECIMAL_SUFFIXES)
    return { base: 10, exponent: DECIMAL_SUFFIXES[suffix]!, format: 'DecimalSI' };
  if (suffix in BINARY_SUFFIXES) return { base: 2, exponent: BINARY_SUFFIXES[suffix]!, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[-+]?\d+$/.test(suffix.slice(1))) {
    return { base: 10, exponent: Number(suffix.slice(1)), format: 'DecimalExponent' };
  }
  throw new Error(SUFFIX_ERROR);
}

const pow10 = (n: number) => 10n ** BigInt(n);

/** Divides rounding away from zero (inf.RoundUp). */
function divideUp(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b === a ? q : q + (a > 0n ? 1n : -1n);
}

/** Throws an Error with the server's message when the text is not a quantity. */
export function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw new Error(QUANTITY_FORMAT_ERROR);
  const { positive, num, denom, suffix } = split(str);
  const { base, exponent, format } = suffixOf(suffix);
  // digits × 10^-len(denom) × base^exponent, expressed in nanos.
  let value = BigInt(`${num}${denom}` || '0');
  let decimalExponent = 9 - denom.length;
  if (base === 10) decimalExponent += exponent;
  else value *= 2n ** BigInt(exponent);
  const nanos =
    decimalExponent >= 0 ? value * pow10(decimalExponent) : divideUp(value, pow10(-decimalExponent));
  return { nanos: positive ? nanos : -nanos, format };
}

export function compareQuantities(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, format: a.format };
}

export const isInteger = (q: Quantity) => q.nanos % 1_000_000_000n === 0n;

function decimalSuffix(exponent: number, format: Format): string {
  if (format === 'DecimalExponent') return exponent === 0 ? '' : `e${exponent}`;
  const named = Object.entries(DECIMAL_SUFFIXES).find(([, e]) => e === exponent);
  return named ? named[0] : `e${exponent}`;
}

/** Quantity.String(): the canonical form the server stores and answers with. */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  let format = q.format;
  const oneKi = 1024n * 1_000_000_000n;
  if (format === 'BinarySI' && ((q.nanos > -oneKi && q.nanos < oneKi) || !isInteger(q))) format = 'DecimalSI';
  if (format === 'BinarySI') {
    let amount = q.nanos / 1_000_000_000n;
    let step = 0;
    while (amount % 1024n === 0n && step < 6) {
      amount /= 1024n;
      step++;
    }
    return `${amount}${Object.keys(BINARY_SUFFIXES)[step - 1] ?? ''}`;
  }
  let amount = q.nanos;
  let exponent = -9;
  while (amount % 10n === 0n) {
    amount /= 10n;
    exponent++;
  }
  while (((exponent % 3) + 3) % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  return `${amount}${decimalSuffix(exponent, format)}`;
}

/** Reads a quantity from JSON as Quantity.UnmarshalJSON does (strings and bare numbers). */
export function quantityFromJson(v: unknown): Quantity {
  return parseQuantity(typeof v === 'number' ? String(v) : String(v).trim());
}
