/**
 * CEL runtime values: int as bigint, uint and the other non-JSON kinds as small classes, lists as
 * arrays, maps and schema objects as CelMap. JSON values of a custom resource become CEL values
 * through the schema's declared type (an integer field is an int, a date-time a timestamp …).
 */
import { isPlainObject } from '../types';
import type { DeclType } from './declTypes';
import { escapeFieldName } from './declTypes';

export class CelUint {
  constructor(readonly v: bigint) {}
}

export class CelTimestamp {
  /** Milliseconds since the epoch, plus nanoseconds below the millisecond. */
  constructor(
    readonly ms: number,
    readonly subMsNanos = 0,
  ) {}
}

export class CelDuration {
  constructor(readonly nanos: bigint) {}
}

export class CelTypeValue {
  constructor(readonly name: string) {}
}

export class CelOptional {
  constructor(readonly value?: CelValue) {}
}

/** A map (or a schema object): keys are strings, ints, uints or bools. */
export class CelMap {
  private readonly entries = new Map<string, [CelValue, CelValue]>();

  static keyOf(k: CelValue): string {
    if (typeof k === 'string') return `s:${k}`;
    if (typeof k === 'bigint') return `i:${k}`;
    if (k instanceof CelUint) return `i:${k.v}`;
    if (typeof k === 'boolean') return `b:${k}`;
    if (typeof k === 'number' && Number.isInteger(k)) return `i:${k}`;
    throw new CelRuntimeError('unsupported key type');
  }

  set(k: CelValue, v: CelValue): void {
    this.entries.set(CelMap.keyOf(k), [k, v]);
  }

  get(k: CelValue): CelValue | undefined {
    return this.entries.get(CelMap.keyOf(k))?.[1];
  }

  has(k: CelValue): boolean {
    return this.entries.has(CelMap.keyOf(k));
  }

  keys(): CelValue[] {
    return [...this.entries.values()].map((e) => e[0]);
  }

  get size(): number {
    return this.entries.size;
  }
}

export type CelValue =
  | bigint
  | number
  | string
  | boolean
  | null
  | Uint8Array
  | CelValue[]
  | CelMap
  | CelUint
  | CelTimestamp
  | CelDuration
  | CelTypeValue
  | CelOptional;

export class CelRuntimeError extends Error {}

const DURATION_UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Go's time.ParseDuration (`1h30m`, `-1.5s`). */
export function parseDuration(s: string): CelDuration {
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(s);
  if (!m && s !== '0') throw new CelRuntimeError(`time: invalid duration "${s}"`);
  let total = 0n;
  for (const part of s.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    const [whole, frac = ''] = part[1]!.split('.');
    const unit = DURATION_UNITS[part[2]!]!;
    total +=
      BigInt(whole || '0') * unit + (BigInt((frac + '000000000').slice(0, 9) || '0') * unit) / 1_000_000_000n;
  }
  return new CelDuration(s.startsWith('-') ? -total : total);
}

export function parseTimestamp(s: string): CelTimestamp {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2}))?$/.exec(s);
  if (!m) throw new CelRuntimeError(`invalid timestamp "${s}"`);
  const ms = Date.parse(m[2] ? `${m[1]}T${m[2]}${m[4]!.toUpperCase()}` : `${m[1]}T00:00:00Z`);
  if (Number.isNaN(ms)) throw new CelRuntimeError(`invalid timestamp "${s}"`);
  const frac = (m[3] ?? '').padEnd(9, '0');
  return new CelTimestamp(ms + Number(frac.slice(0, 3)), Number(frac.slice(3, 9)));
}

/** A JSON value read through its declared type (the server's UnstructuredToVal). */
export function toCel(value: unknown, decl: DeclType | undefined): CelValue {
  if (value === null || value === undefined) return null;
  switch (decl?.kind) {
    case 'int':
      return typeof value === 'number' ? BigInt(Math.trunc(value)) : (value as CelValue);
    case 'double':
      return Number(value);
    case 'timestamp':
      return typeof value === 'string' ? parseTimestamp(value) : (value as CelValue);
    case 'duration':
      return typeof value === 'string' ? parseDuration(value) : (value as CelValue);
    case 'bytes':
      return typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'base64')) : (value as CelValue);
    case 'list':
      return Array.isArray(value) ? value.map((v) => toCel(v, decl.elem)) : (value as CelValue);
    case 'map': {
      if (!isPlainObject(value)) return value as CelValue;
      const m = new CelMap();
      for (const [k, v] of Object.entries(value)) m.set(k, toCel(v, decl.elem));
      return m;
    }
    case 'object': {
      if (!isPlainObject(value)) return value as CelValue;
      const m = new CelMap();
      for (const [k, v] of Object.entries(value)) {
        const name = escapeFieldName(k);
        if (name !== undefined) m.set(name, toCel(v, decl.fields?.get(name)));
      }
      return m;
    }
    default:
      return fromJson(value);
  }
}

/** JSON without a declared type (dyn): whole numbers are ints. */
function fromJson(value: unknown): CelValue {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(fromJson);
  if (isPlainObject(value)) {
    const m = new CelMap();
    for (const [k, v] of Object.entries(value)) m.set(k, fromJson(v));
    return m;
  }
  return value as CelValue;
}
