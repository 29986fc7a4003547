/**
 * Evaluates a checked CEL expression over runtime values: CEL's error-absorbing && and ||,
 * comprehensions, heterogeneous numeric comparison, overflow checks, and the functions the
 * checker knows. The server runs rules this way on every write and on CRD defaults (17 #46).
 */
import type { Expr } from './ast';
import {
  CelDuration,
  CelMap,
  CelOptional,
  CelRuntimeError,
  CelTimestamp,
  CelTypeValue,
  CelUint,
  parseDuration,
  parseTimestamp,
  type CelValue,
} from './values';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

const TYPE_NAMES = [
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'null_type',
  'list',
  'map',
  'type',
  'dyn',
];

function fail(message: string): never {
  throw new CelRuntimeError(message);
}

function int(v: bigint): bigint {
  if (v < INT64_MIN || v > INT64_MAX) fail('integer overflow');
  return v;
}

function uint(v: bigint): CelUint {
  if (v < 0n || v > UINT64_MAX) fail('unsigned integer overflow');
  return new CelUint(v);
}

function typeOfValue(v: CelValue): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v === null) return 'null_type';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'list';
  if (v instanceof CelMap) return 'map';
  if (v instanceof CelUint) return 'uint';
  if (v instanceof CelTimestamp) return 'google.protobuf.Timestamp';
  if (v instanceof CelDuration) return 'google.protobuf.Duration';
  if (v instanceof CelTypeValue) return 'type';
  return 'optional_type';
}

/** A number of any CEL numeric kind, for heterogeneous comparison. */
function numeric(v: CelValue): number | bigint | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof CelUint) return v.v;
  return undefined;
}

function compareNumbers(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function compare(a: CelValue, b: CelValue): number {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return compareNumbers(na, nb);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof CelTimestamp && b instanceof CelTimestamp)
    return a.ms - b.ms || a.subMsNanos - b.subMsNanos;
  if (a instanceof CelDuration && b instanceof CelDuration)
    return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  if (a instanceof Uint8Array && b instanceof Uint8Array)
    return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return fail('no such overload');
}

function equals(a: CelValue, b: CelValue): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return compareNumbers(na, nb) === 0;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => equals(x, b[i]!));
  if (a instanceof CelMap && b instanceof CelMap) {
    return a.size === b.size && a.keys().every((k) => b.has(k) && equals(a.get(k)!, b.get(k)!));
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array)
    return Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
  if (a instanceof CelTimestamp && b instanceof CelTimestamp) return compare(a, b) === 0;
  if (a instanceof CelDuration && b instanceof CelDuration) return a.nanos === b.nanos;
  if (a instanceof CelTypeValue && b instanceof CelTypeValue) return a.name === b.name;
  if (a instanceof CelOptional && b instanceof CelOptional) {
    return a.value === undefined || b.value === undefined ? a.value === b.value : equals(a.value, b.value);
  }
  return a === b;
}

function size(v: CelValue): bigint {
  if (typeof v === 'string') return BigInt([...v].length);
  if (v instanceof Uint8Array) return BigInt(v.length);
  if (Array.isArray(v)) return BigInt(v.length);
  if (v instanceof CelMap) return BigInt(v.size);
  return fail('no such overload: size');
}

/** A Go RE2 pattern as a JavaScript RegExp (leading inline flags become RegExp flags). */
function regexp(pattern: string): RegExp {
  const m = /^\(\?([imsU]+)\)/.exec(pattern);
  const flags = m ? m[1]!.replace('U', '').replace('m', 'm') : '';
  return new RegExp(m ? pattern.slice(m[0].length) : pattern, `u${flags}`);
}

function arithmetic(op: string, a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (op === '_/_' && b === 0n) fail('division by zero');
    if (op === '_%_' && b === 0n) fail('modulus by zero');
    const r = {
      '_+_': a + b,
      '_-_': a - b,
      '_*_': a * b,
      '_/_': b === 0n ? 0n : a / b,
      '_%_': b === 0n ? 0n : a % b,
    }[op]!;
    return int(r);
  }
  if (a instanceof CelUint && b instanceof CelUint) {
    if ((op === '_/_' || op === '_%_') && b.v === 0n)
      fail(op === '_/_' ? 'division by zero' : 'modulus by zero');
    const r = {
      '_+_': a.v + b.v,
      '_-_': a.v - b.v,
      '_*_': a.v * b.v,
      '_/_': b.v ? a.v / b.v : 0n,
      '_%_': b.v ? a.v % b.v : 0n,
    }[op]!;
    return uint(r);
  }
  if (typeof a === 'number' && typeof b === 'number' && op !== '_%_') {
    return { '_+_': a + b, '_-_': a - b, '_*_': a * b, '_/_': a / b }[op]!;
  }
  if (op === '_+_') {
    if (typeof a === 'string' && typeof b === 'string') return a + b;
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
    if (a instanceof Uint8Array && b instanceof Uint8Array) return new Uint8Array([...a, ...b]);
    if (a instanceof CelDuration && b instanceof CelDuration) return new CelDuration(a.nanos + b.nanos);
    if (a instanceof CelTimestamp && b instanceof CelDuration)
      return new CelTimestamp(a.ms + Number(b.nanos / 1_000_000n));
    if (a instanceof CelDuration && b instanceof CelTimestamp)
      return new CelTimestamp(b.ms + Number(a.nanos / 1_000_000n));
  }
  if (op === '_-_') {
    if (a instanceof CelDuration && b instanceof CelDuration) return new CelDuration(a.nanos - b.nanos);
    if (a instanceof CelTimestamp && b instanceof CelDuration)
      return new CelTimestamp(a.ms - Number(b.nanos / 1_000_000n));
    if (a instanceof CelTimestamp && b instanceof CelTimestamp)
      return new CelDuration(BigInt(a.ms - b.ms) * 1_000_000n);
  }
  return fail(`no such overload: ${op}`);
}

function convert(fn: string, v: CelValue): CelValue {
  switch (fn) {
    case 'int':
      if (typeof v === 'bigint') return v;
      if (v instanceof CelUint) return int(v.v);
      if (typeof v === 'number') return int(BigInt(Math.trunc(v)));
      if (typeof v === 'string')
        return /^[-+]?\d+$/.test(v) ? int(BigInt(v)) : fail(`cannot convert "${v}" to int`);
      if (v instanceof CelTimestamp) return BigInt(Math.floor(v.ms / 1000));
      break;
    case 'uint':
      if (typeof v === 'bigint') return uint(v);
      if (v instanceof CelUint) return v;
      if (typeof v === 'number') return uint(BigInt(Math.trunc(v)));
      if (typeof v === 'string')
        return /^\d+$/.test(v) ? uint(BigInt(v)) : fail(`cannot convert "${v}" to uint`);
      break;
    case 'double':
      if (typeof v === 'number') return v;
      if (typeof v === 'bigint') return Number(v);
      if (v instanceof CelUint) return Number(v.v);
      if (typeof v === 'string')
        return Number.isNaN(Number(v)) ? fail(`cannot convert "${v}" to double`) : Number(v);
      break;
    case 'string':
      if (typeof v === 'string') return v;
      if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
      if (v instanceof CelUint) return String(v.v);
      if (typeof v === 'number') return String(v);
      if (v instanceof Uint8Array) return new TextDecoder().decode(v);
      if (v instanceof CelTimestamp) return new Date(v.ms).toISOString().replace('.000Z', 'Z');
      if (v instanceof CelDuration) return `${Number(v.nanos) / 1e9}s`;
      break;
    case 'bytes':
      if (v instanceof Uint8Array) return v;
      if (typeof v === 'string') return new TextEncoder().encode(v);
      break;
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string') {
        if (['true', 'True', 'TRUE', 't', '1'].includes(v)) return true;
        if (['false', 'False', 'FALSE', 'f', '0'].includes(v)) return false;
      }
      break;
    case 'timestamp':
      if (v instanceof CelTimestamp) return v;
      if (typeof v === 'string') return parseTimestamp(v);
      if (typeof v === 'bigint') return new CelTimestamp(Number(v) * 1000);
      break;
    case 'duration':
      if (v instanceof CelDuration) return v;
      if (typeof v === 'string') return parseDuration(v);
      break;
  }
  return fail(`no such overload: ${fn}`);
}

function member(fn: string, target: CelValue, args: CelValue[]): CelValue {
  const str = (v: CelValue) => (typeof v === 'string' ? v : fail(`no such overload: ${fn}`));
  switch (fn) {
    case 'size':
      return size(target);
    case 'contains':
      return str(target).includes(str(args[0]!));
    case 'startsWith':
      return str(target).startsWith(str(args[0]!));
    case 'endsWith':
      return str(target).endsWith(str(args[0]!));
    case 'matches':
      return regexp(str(args[0]!)).test(str(target));
    case 'lowerAscii':
      return str(target).replace(/[A-Z]/g, (c) => c.toLowerCase());
    case 'upperAscii':
      return str(target).replace(/[a-z]/g, (c) => c.toUpperCase());
    case 'trim':
      return str(target).trim();
    case 'charAt': {
      const chars = [...str(target)];
      const i = Number(args[0]);
      return i < 0 || i > chars.length ? fail(`index out of range: ${i}`) : (chars[i] ?? '');
    }
    case 'substring': {
      const chars = [...str(target)];
      const from = Number(args[0]);
      const to = args[1] === undefined ? chars.length : Number(args[1]);
      if (from < 0 || to > chars.length || from > to) fail(`index out of range`);
      return chars.slice(from, to).join('');
    }
    case 'split':
      return str(target).split(str(args[0]!));
    case 'replace':
      return str(target).split(str(args[0]!)).join(str(args[1]!));
    case 'join':
      return (target as CelValue[]).map(str).join(args[0] === undefined ? '' : str(args[0]));
    case 'indexOf':
    case 'lastIndexOf': {
      if (Array.isArray(target)) {
        const found = target.map((x) => equals(x, args[0]!));
        return BigInt(fn === 'indexOf' ? found.indexOf(true) : found.lastIndexOf(true));
      }
      const chars = [...str(target)].join('');
      return BigInt(fn === 'indexOf' ? chars.indexOf(str(args[0]!)) : chars.lastIndexOf(str(args[0]!)));
    }
    case 'isSorted':
      return (target as CelValue[]).every((x, i, all) => i === 0 || compare(all[i - 1]!, x) <= 0);
    case 'sum':
      return (target as CelValue[]).reduce((a, b) => arithmetic('_+_', a, b), 0n as CelValue);
    case 'min':
    case 'max': {
      const list = target as CelValue[];
      if (list.length === 0) fail(`${fn}(list) argument must not be empty`);
      return list.reduce((a, b) => ((fn === 'min' ? compare(b, a) < 0 : compare(b, a) > 0) ? b : a));
    }
    case 'hasValue':
      return (target as CelOptional).value !== undefined;
    case 'value':
      return (target as CelOptional).value ?? fail('optional.none() dereference');
    case 'orValue':
      return (target as CelOptional).value ?? args[0]!;
    case 'or':
      return (target as CelOptional).value !== undefined ? target : args[0]!;
  }
  return fail(`no such overload: ${fn}`);
}

export class Interpreter {
  private readonly scopes: Map<string, CelValue>[] = [];

  constructor(private readonly variables: Record<string, CelValue>) {}

  private lookup(name: string): CelValue {
    for (let i = this.scopes.length - 1; i >= 0; i--)
      if (this.scopes[i]!.has(name)) return this.scopes[i]!.get(name)!;
    if (name in this.variables) return this.variables[name]!;
    if (TYPE_NAMES.includes(name)) return new CelTypeValue(name === 'null_type' ? 'null_type' : name);
    return fail(`undeclared reference to '${name}'`);
  }

  /** Evaluates to a value or throws CelRuntimeError (CEL's error value). */
  eval(e: Expr): CelValue {
    switch (e.kind) {
      case 'literal':
        return e.type === 'uint' ? new CelUint(e.value as bigint) : (e.value as CelValue);
      case 'ident':
        return this.lookup(e.name);
      case 'list':
        return e.elements.map((x) => this.eval(x));
      case 'map': {
        const m = new CelMap();
        for (const entry of e.entries) m.set(this.eval(entry.key), this.eval(entry.value));
        return m;
      }
      case 'select': {
        const operand = this.eval(e.operand);
        if (!(operand instanceof CelMap))
          return fail(`no such overload: field selection on ${typeOfValue(operand)}`);
        if (e.testOnly) return operand.has(e.field);
        const v = operand.get(e.field);
        return v === undefined ? fail(`no such key: ${e.field}`) : v;
      }
      case 'comprehension': {
        const range = this.eval(e.iterRange);
        const items = Array.isArray(range)
          ? range
          : range instanceof CelMap
            ? range.keys()
            : fail('no such overload: range');
        const accu = new Map<string, CelValue>([[e.accuVar, this.eval(e.accuInit)]]);
        this.scopes.push(accu);
        try {
          for (const item of items) {
            if (this.eval(e.loopCondition) === false) break;
            this.scopes.push(new Map([[e.iterVar, item]]));
            try {
              accu.set(e.accuVar, this.eval(e.loopStep));
            } finally {
              this.scopes.pop();
            }
          }
          return this.eval(e.result);
        } finally {
          this.scopes.pop();
        }
      }
      case 'call':
        return this.call(e);
    }
  }

  /** The value, or the error it evaluated to (for && and || which absorb errors). */
  private attempt(e: Expr): CelValue | CelRuntimeError {
    try {
      return this.eval(e);
    } catch (err) {
      if (err instanceof CelRuntimeError) return err;
      throw err;
    }
  }

  private logical(e: Expr & { kind: 'call' }, decisive: boolean): CelValue {
    const left = this.attempt(e.args[0]!);
    if (left === decisive) return decisive;
    const right = this.attempt(e.args[1]!);
    if (right === decisive) return decisive;
    if (left instanceof CelRuntimeError) throw left;
    if (right instanceof CelRuntimeError) throw right;
    return !decisive;
  }

  private call(e: Expr & { kind: 'call' }): CelValue {
    switch (e.fn) {
      case '_&&_':
        return this.logical(e, false);
      case '_||_':
        return this.logical(e, true);
      case '_?_:_':
        return this.eval(e.args[0]!) === true ? this.eval(e.args[1]!) : this.eval(e.args[2]!);
      case '@not_strictly_false': {
        const v = this.attempt(e.args[0]!);
        return v !== false;
      }
    }
    if (e.target?.kind === 'ident' && e.target.name === 'optional') {
      return e.fn === 'of' ? new CelOptional(this.eval(e.args[0]!)) : new CelOptional();
    }
    const args = e.args.map((a) => this.eval(a));
    if (e.target) return member(e.fn, this.eval(e.target), args);
    const [a, b] = args as [CelValue, CelValue];
    switch (e.fn) {
      case '_==_':
        return equals(a, b);
      case '_!=_':
        return !equals(a, b);
      case '_<_':
        return compare(a, b) < 0;
      case '_<=_':
        return compare(a, b) <= 0;
      case '_>_':
        return compare(a, b) > 0;
      case '_>=_':
        return compare(a, b) >= 0;
      case '_+_':
      case '_-_':
      case '_*_':
      case '_/_':
      case '_%_':
        return arithmetic(e.fn, a, b);
      case '!_':
        return typeof a === 'boolean' ? !a : fail('no such overload: !_');
      case '-_':
        if (typeof a === 'bigint') return int(-a);
        if (typeof a === 'number') return -a;
        return fail('no such overload: -_');
      case '@in':
        if (Array.isArray(b)) return b.some((x) => equals(a, x));
        if (b instanceof CelMap) return b.has(a);
        return fail('no such overload: @in');
      case '_[_]':
        if (Array.isArray(a)) {
          const i = Number(numeric(b));
          return i >= 0 && i < a.length && Number.isInteger(i) ? a[i]! : fail(`index out of bounds: ${i}`);
        }
        if (a instanceof CelMap) return a.get(b) ?? fail(`no such key: ${String(b)}`);
        return fail('no such overload: _[_]');
      case 'size':
        return size(a);
      case 'matches':
        return regexp(b as string).test(a as string);
      case 'type':
        return new CelTypeValue(typeOfValue(a));
      case 'dyn':
        return a;
      default:
        return convert(e.fn, a);
    }
  }
}
