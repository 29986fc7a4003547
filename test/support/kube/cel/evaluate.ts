import { CelUint, type CelNode } from './ast';
import { CelEvalError, CelUnsupported } from './errors';

/**
 * A value of a CEL type this evaluator does not model (timestamp, duration): it can be tested for
 * presence and compared for equality, anything else refuses the rule as unsupported.
 */
export class CelOpaque {
  constructor(
    readonly type: string,
    readonly raw: unknown,
  ) {}
}

function refuseOpaque(...values: unknown[]): void {
  const o = values.find((v) => v instanceof CelOpaque);
  if (o) throw new CelUnsupported(`CEL values of type ${o.type}`);
}

const INT_MAX = 9223372036854775807n;
const INT_MIN = -9223372036854775808n;
const UINT_MAX = 18446744073709551615n;

function checkedInt(v: bigint): bigint {
  if (v > INT_MAX || v < INT_MIN) throw new CelEvalError('integer overflow');
  return v;
}

function checkedUint(v: bigint): CelUint {
  if (v > UINT_MAX || v < 0n) throw new CelEvalError('unsigned integer overflow');
  return new CelUint(v);
}

function isMap(v: unknown): v is Record<string, unknown> | Map<unknown, unknown> {
  return (
    v instanceof Map || (typeof v === 'object' && v !== null && !Array.isArray(v) && v.constructor === Object)
  );
}

function mapKeys(m: Record<string, unknown> | Map<unknown, unknown>): unknown[] {
  return m instanceof Map ? [...m.keys()] : Object.keys(m);
}

function mapGet(
  m: Record<string, unknown> | Map<unknown, unknown>,
  key: unknown,
): { found: boolean; value?: unknown } {
  if (m instanceof Map) {
    for (const [k, v] of m) if (celEquals(k, key)) return { found: true, value: v };
    return { found: false };
  }
  if (typeof key !== 'string' || !Object.prototype.hasOwnProperty.call(m, key)) return { found: false };
  return { found: true, value: m[key] };
}

/** The CEL type name of a value, as cel-go prints it in overload errors. */
function typeName(v: unknown): string {
  if (v === null) return 'null_type';
  if (typeof v === 'bigint') return 'int';
  if (v instanceof CelUint) return 'uint';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'list';
  return 'map';
}

function numeric(v: unknown): number | bigint | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof CelUint) return v.value;
  return undefined;
}

/** CEL's heterogeneous equality: numbers compare by value across int, uint and double. */
function celEquals(a: unknown, b: unknown): boolean {
  if (a instanceof CelOpaque || b instanceof CelOpaque) {
    return a instanceof CelOpaque && b instanceof CelOpaque && a.type === b.type && a.raw === b.raw;
  }
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return compareNumbers(na, nb) === 0;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  if (a instanceof Uint8Array)
    return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const ka = mapKeys(a);
    if (ka.length !== mapKeys(b).length) return false;
    return ka.every((k) => {
      const other = mapGet(b, k);
      return other.found && celEquals(mapGet(a, k).value, other.value);
    });
  }
  return a === b;
}

/** -1, 0, 1; NaN compares as unordered (1). */
function compareNumbers(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

function noOverload(op: string, ...args: unknown[]): CelEvalError {
  void op;
  void args;
  return new CelEvalError('no such overload');
}

function compare(op: string, a: unknown, b: unknown): boolean {
  let c: number;
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) {
    if (Number.isNaN(Number(na)) || Number.isNaN(Number(nb))) return false;
    c = compareNumbers(na, nb);
  } else if (typeof a === 'string' && typeof b === 'string') {
    c = a < b ? -1 : a > b ? 1 : 0;
  } else if (typeof a === 'boolean' && typeof b === 'boolean') {
    c = Number(a) - Number(b);
  } else {
    throw noOverload(op, a, b);
  }
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

function arithmetic(op: string, a: unknown, b: unknown): unknown {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    switch (op) {
      case '+':
        return checkedInt(a + b);
      case '-':
        return checkedInt(a - b);
      case '*':
        return checkedInt(a * b);
      case '/':
        if (b === 0n) throw new CelEvalError('division by zero');
        return checkedInt(a / b);
      default:
        if (b === 0n) throw new CelEvalError('modulus by zero');
        return a % b;
    }
  }
  if (a instanceof CelUint && b instanceof CelUint) {
    if ((op === '/' || op === '%') && b.value === 0n)
      throw new CelEvalError(op === '/' ? 'division by zero' : 'modulus by zero');
    const x = a.value;
    const y = b.value;
    return checkedUint(
      op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === '/' ? x / y : x % y,
    );
  }
  if (typeof a === 'number' && typeof b === 'number' && op !== '%') {
    return op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : a / b;
  }
  if (op === '+') {
    if (typeof a === 'string' && typeof b === 'string') return a + b;
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
    if (a instanceof Uint8Array && b instanceof Uint8Array) return new Uint8Array([...a, ...b]);
  }
  throw noOverload(op, a, b);
}

function size(v: unknown): bigint {
  if (typeof v === 'string') return BigInt([...v].length);
  if (v instanceof Uint8Array || Array.isArray(v)) return BigInt(v.length);
  if (isMap(v)) return BigInt(mapKeys(v).length);
  throw noOverload('size', v);
}

function asBool(v: unknown): boolean {
  if (typeof v !== 'boolean') throw new CelEvalError('no such overload');
  return v;
}

function doubleToString(d: number): string {
  if (Number.isInteger(d) && Math.abs(d) < 1e21) return String(d);
  return String(d);
}

function toStringValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof CelUint) return v.value.toString();
  if (typeof v === 'number') return doubleToString(v);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  throw noOverload('string', v);
}

function toInt(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (v instanceof CelUint) return checkedInt(v.value);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new CelEvalError('integer overflow');
    return checkedInt(BigInt(Math.trunc(v)));
  }
  if (typeof v === 'string') {
    if (!/^[+-]?\d+$/.test(v)) throw new CelEvalError(`cannot convert string to int: ${v}`);
    return checkedInt(BigInt(v));
  }
  throw noOverload('int', v);
}

/** Go's RE2 and JavaScript agree on the patterns CRDs use; `(?i)` flags are mapped. */
function regex(pattern: string): RegExp {
  const flags = /^\(\?([ims]+)\)/.exec(pattern);
  try {
    return flags ? new RegExp(pattern.slice(flags[0].length), `u${flags[1]}`) : new RegExp(pattern, 'u');
  } catch {
    throw new CelEvalError(`error parsing regexp: ${pattern}`);
  }
}

type Scope = Map<string, unknown>;

/** Kubernetes escapes property names that are not CEL identifiers (`__dash__` for `-` …). */
function unescapeProperty(name: string): string {
  if (!name.includes('__')) return name;
  return name.replace(/__(underscores|dot|dash|slash|[a-z]+)__/g, (m, w: string) => {
    switch (w) {
      case 'underscores':
        return '__';
      case 'dot':
        return '.';
      case 'dash':
        return '-';
      case 'slash':
        return '/';
      default:
        return w;
    }
  });
}

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

class Evaluator {
  eval(node: CelNode, scope: Scope): unknown {
    switch (node.kind) {
      case 'literal':
        return node.value;
      case 'ident':
        if (!scope.has(node.name)) throw new CelEvalError(`no such attribute: ${node.name}`);
        return scope.get(node.name);
      case 'select':
        return this.select(this.eval(node.operand, scope), unescapeProperty(node.field));
      case 'index':
        return this.index(this.eval(node.operand, scope), this.eval(node.index, scope));
      case 'list':
        return node.items.map((i) => this.eval(i, scope));
      case 'map': {
        const m = new Map<unknown, unknown>();
        for (const e of node.entries) m.set(this.eval(e.key, scope), this.eval(e.value, scope));
        return m;
      }
      case 'unary': {
        const v = this.eval(node.operand, scope);
        refuseOpaque(v);
        if (node.op === '!') return !asBool(v);
        if (typeof v === 'bigint') return checkedInt(-v);
        if (typeof v === 'number') return -v;
        throw noOverload('-', v);
      }
      case 'conditional':
        return asBool(this.eval(node.test, scope))
          ? this.eval(node.then, scope)
          : this.eval(node.otherwise, scope);
      case 'binary':
        return this.binary(node, scope);
      case 'call':
        return this.call(node, scope);
    }
  }

  private select(v: unknown, field: string): unknown {
    if (!isMap(v)) throw new CelEvalError(`type '${typeName(v)}' does not support field selection`);
    const got = mapGet(v, field);
    if (!got.found) throw new CelEvalError(`no such key: ${field}`);
    return got.value;
  }

  private index(v: unknown, i: unknown): unknown {
    if (Array.isArray(v)) {
      const n = typeof i === 'bigint' ? i : i instanceof CelUint ? i.value : undefined;
      if (n === undefined) throw noOverload('_[_]', v, i);
      if (n < 0n || n >= BigInt(v.length)) throw new CelEvalError(`index out of bounds: ${n.toString()}`);
      return v[Number(n)];
    }
    if (isMap(v)) {
      const got = mapGet(v, i);
      if (!got.found) throw new CelEvalError(`no such key: ${toDisplay(i)}`);
      return got.value;
    }
    throw noOverload('_[_]', v, i);
  }

  private binary(node: Extract<CelNode, { kind: 'binary' }>, scope: Scope): unknown {
    if (node.op === '&&' || node.op === '||') {
      // CEL's logic is commutative: a decisive side wins even if the other side fails.
      const decisive = node.op === '||';
      const sides = [node.left, node.right].map((n) => {
        try {
          return { v: this.eval(n, scope) };
        } catch (e) {
          if (e instanceof CelEvalError) return { e };
          throw e;
        }
      });
      if (sides.some((s) => 'v' in s && s.v === decisive)) return decisive;
      for (const s of sides) if ('e' in s) throw s.e;
      for (const s of sides) asBool(s.v);
      return !decisive;
    }
    const a = this.eval(node.left, scope);
    const b = this.eval(node.right, scope);
    if (node.op !== '==' && node.op !== '!=') refuseOpaque(a, b);
    switch (node.op) {
      case '==':
        return celEquals(a, b);
      case '!=':
        return !celEquals(a, b);
      case '<':
      case '<=':
      case '>':
      case '>=':
        return compare(node.op, a, b);
      case 'in':
        if (Array.isArray(b)) return b.some((x) => celEquals(x, a));
        if (isMap(b)) return mapGet(b, a).found;
        throw noOverload('in', a, b);
      default:
        return arithmetic(node.op, a, b);
    }
  }

  private call(node: Extract<CelNode, { kind: 'call' }>, scope: Scope): unknown {
    const { fn, target, args } = node;
    if (fn === 'has' && !target) {
      const arg = args[0];
      if (args.length !== 1 || arg?.kind !== 'select')
        throw new CelEvalError('invalid argument to has() macro');
      const v = this.eval(arg.operand, scope);
      if (!isMap(v)) throw new CelEvalError(`type '${typeName(v)}' does not support field selection`);
      return mapGet(v, unescapeProperty(arg.field)).found;
    }
    if (target && MACROS.has(fn) && args[0]?.kind === 'ident') {
      return this.macro(fn, this.eval(target, scope), args[0].name, args.slice(1), scope);
    }
    const recv = target ? [this.eval(target, scope)] : [];
    const values = [...recv, ...args.map((a) => this.eval(a, scope))];
    refuseOpaque(...values);
    return callFunction(fn, Boolean(target), values);
  }

  private macro(fn: string, range: unknown, v: string, body: CelNode[], scope: Scope): unknown {
    const items = Array.isArray(range) ? range : isMap(range) ? mapKeys(range) : undefined;
    if (!items) throw noOverload(fn, range);
    const withVar = (x: unknown): Scope => new Map(scope).set(v, x);
    const test = (x: unknown, n: CelNode) => asBool(this.eval(n, withVar(x)));
    switch (fn) {
      case 'all':
      case 'exists': {
        // Errors are absorbed by a decisive element, as for && and ||.
        const decisive = fn === 'exists';
        let err: unknown;
        for (const x of items) {
          try {
            if (test(x, body[0]!) === decisive) return decisive;
          } catch (e) {
            if (!(e instanceof CelEvalError)) throw e;
            err ??= e;
          }
        }
        if (err) throw err;
        return !decisive;
      }
      case 'exists_one':
        return items.filter((x) => test(x, body[0]!)).length === 1;
      case 'filter':
        return items.filter((x) => test(x, body[0]!));
      default:
        if (body.length === 2) {
          return items.filter((x) => test(x, body[0]!)).map((x) => this.eval(body[1]!, withVar(x)));
        }
        return items.map((x) => this.eval(body[0]!, withVar(x)));
    }
  }
}

function toDisplay(v: unknown): string {
  return typeof v === 'string' ? v : toStringValue(v);
}

function str(v: unknown): string {
  if (typeof v !== 'string') throw noOverload('string function', v);
  return v;
}

/** Functions and methods: the standard library and the Kubernetes string and list extensions. */
function callFunction(fn: string, method: boolean, a: unknown[]): unknown {
  const [x, y, z] = a;
  switch (fn) {
    case 'size':
      return size(x);
    case 'contains':
      return str(x).includes(str(y));
    case 'startsWith':
      return str(x).startsWith(str(y));
    case 'endsWith':
      return str(x).endsWith(str(y));
    case 'matches':
      return regex(str(y)).test(str(x));
    case 'lowerAscii':
      return str(x).replace(/[A-Z]/g, (c) => c.toLowerCase());
    case 'upperAscii':
      return str(x).replace(/[a-z]/g, (c) => c.toUpperCase());
    case 'trim':
      return str(x).trim();
    case 'split':
      return str(x).split(str(y));
    case 'join':
      if (!Array.isArray(x)) throw noOverload(fn, x);
      return x.map(str).join(y === undefined ? '' : str(y));
    case 'replace':
      return str(x).split(str(y)).join(str(z));
    case 'int':
      return toInt(x);
    case 'uint':
      return checkedUint(typeof x === 'string' ? BigInt(x) : toInt(x));
    case 'double':
      if (typeof x === 'number') return x;
      if (typeof x === 'bigint') return Number(x);
      if (x instanceof CelUint) return Number(x.value);
      if (typeof x === 'string' && x.trim() !== '' && !Number.isNaN(Number(x))) return Number(x);
      throw noOverload(fn, x);
    case 'string':
      return toStringValue(x);
    case 'bool':
      if (typeof x === 'boolean') return x;
      if (x === 'true' || x === 'false') return x === 'true';
      throw noOverload(fn, x);
    case 'dyn':
      return x;
    case 'isSorted':
      if (!Array.isArray(x)) throw noOverload(fn, x);
      return x.every((v, i) => i === 0 || compare('<=', x[i - 1], v));
    case 'sum':
      if (!Array.isArray(x)) throw noOverload(fn, x);
      return x.reduce((acc: unknown, v) => arithmetic('+', acc, v), typeof x[0] === 'number' ? 0 : 0n);
    case 'min':
    case 'max':
      if (method && Array.isArray(x)) {
        if (x.length === 0) throw new CelEvalError(`${fn} called on empty list`);
        return x.reduce((best: unknown, v) => (compare(fn === 'min' ? '<' : '>', v, best) ? v : best));
      }
      throw new CelUnsupported(`CEL function ${fn}() outside a list`);
    case 'indexOf':
    case 'lastIndexOf':
      if (Array.isArray(x)) {
        const idx =
          fn === 'indexOf' ? x.findIndex((v) => celEquals(v, y)) : x.findLastIndex((v) => celEquals(v, y));
        return BigInt(idx);
      }
      return BigInt(fn === 'indexOf' ? [...str(x)].join('').indexOf(str(y)) : str(x).lastIndexOf(str(y)));
    default:
      throw new CelUnsupported(`CEL function ${fn}()`);
  }
}

/**
 * Evaluates a parsed expression with the given variables (`self`, `oldSelf` …). CEL values: int
 * is a bigint, uint a CelUint, double a number, bytes a Uint8Array, lists are arrays, objects and
 * maps plain objects (string keys) or Maps (map literals). Throws CelEvalError for what cel-go
 * fails at run time, CelUnsupported for what this evaluator does not implement.
 */
export function evaluateCel(node: CelNode, variables: Record<string, unknown>): unknown {
  return new Evaluator().eval(node, new Map(Object.entries(variables)));
}
