import { CelUint, type BinaryOp, type CelNode } from './ast';
import { CelSyntaxError } from './errors';

type Token =
  | { t: 'num'; value: bigint | number | CelUint; at: number }
  | { t: 'str'; value: string; at: number }
  | { t: 'bytes'; value: Uint8Array; at: number }
  | { t: 'ident'; value: string; at: number }
  | { t: 'op'; value: string; at: number }
  | { t: 'eof'; at: number };

const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '+', '-', '*', '/', '%', '!', '?', ':'];
const PUNCTUATION = '.,()[]{}';
/** Words CEL reserves; `in` is an operator, the others may not name anything. */
const RESERVED = new Set([
  'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop',
  'package', 'namespace', 'return', 'var', 'void', 'while',
]); // prettier-ignore

const ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '`': '`',
  '?': '?',
};

function readString(src: string, start: number): { value: string; end: number; bytes: boolean } {
  let i = start;
  let raw = false;
  let bytes = false;
  for (;;) {
    const c = src[i]?.toLowerCase();
    if (c === 'r') raw = true;
    else if (c === 'b') bytes = true;
    else break;
    i++;
  }
  const quote = src.startsWith(src[i]!.repeat(3), i) ? src[i]!.repeat(3) : src[i]!;
  i += quote.length;
  let out = '';
  for (;;) {
    if (i >= src.length) throw new CelSyntaxError(`unterminated string at ${start}`);
    if (src.startsWith(quote, i)) return { value: out, end: i + quote.length, bytes };
    const c = src[i]!;
    if (quote.length === 1 && (c === '\n' || c === '\r'))
      throw new CelSyntaxError(`newline in string at ${i}`);
    if (c !== '\\' || raw) {
      out += c;
      i++;
      continue;
    }
    const e = src[i + 1] ?? '';
    if (e in ESCAPES) {
      out += ESCAPES[e];
      i += 2;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = src.slice(i + 2, i + 2 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw new CelSyntaxError(`bad escape at ${i}`);
      out += String.fromCodePoint(parseInt(hex, 16));
      i += 2 + n;
    } else if (/[0-3]/.test(e)) {
      const oct = src.slice(i + 1, i + 4);
      if (!/^[0-3][0-7]{2}$/.test(oct)) throw new CelSyntaxError(`bad escape at ${i}`);
      out += String.fromCodePoint(parseInt(oct, 8));
      i += 4;
    } else {
      throw new CelSyntaxError(`bad escape at ${i}`);
    }
  }
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    const stringStart = /^[rRbB]{0,2}['"]/.exec(src.slice(i, i + 3));
    if (stringStart) {
      const s = readString(src, i);
      tokens.push(
        s.bytes
          ? { t: 'bytes', value: new TextEncoder().encode(s.value), at: i }
          : { t: 'str', value: s.value, at: i },
      );
      i = s.end;
      continue;
    }
    const num =
      /^0[xX][0-9a-fA-F]+[uU]?|^(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?[uU]?/.exec(src.slice(i)) ?? undefined;
    if (num && (/\d/.test(c) || (c === '.' && /\d/.test(src[i + 1] ?? '')))) {
      const text = num[0];
      tokens.push({ t: 'num', value: numberValue(text), at: i });
      i += text.length;
      continue;
    }
    const ident = /^[_a-zA-Z][_a-zA-Z0-9]*/.exec(src.slice(i));
    if (ident) {
      tokens.push({ t: 'ident', value: ident[0], at: i });
      i += ident[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op) {
      tokens.push({ t: 'op', value: op, at: i });
      i += op.length;
      continue;
    }
    if (PUNCTUATION.includes(c)) {
      tokens.push({ t: 'op', value: c, at: i });
      i++;
      continue;
    }
    throw new CelSyntaxError(`unexpected character ${JSON.stringify(c)} at ${i}`);
  }
  tokens.push({ t: 'eof', at: src.length });
  return tokens;
}

function numberValue(text: string): bigint | number | CelUint {
  const unsigned = /[uU]$/.test(text);
  const digits = unsigned ? text.slice(0, -1) : text;
  if (/^0[xX]/.test(digits) || /^\d+$/.test(digits)) {
    const v = BigInt(digits);
    if (unsigned) return new CelUint(v);
    if (v > 9223372036854775807n) throw new CelSyntaxError(`integer literal out of range: ${text}`);
    return v;
  }
  if (unsigned) throw new CelSyntaxError(`bad number ${text}`);
  return Number(digits);
}

const RELATIONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private isOp(value: string): boolean {
    const tok = this.peek();
    return tok.t === 'op' && tok.value === value;
  }

  private isKeyword(value: string): boolean {
    const tok = this.peek();
    return tok.t === 'ident' && tok.value === value;
  }

  private expect(value: string): void {
    if (!this.isOp(value)) throw new CelSyntaxError(`expected '${value}' at ${this.peek().at}`);
    this.pos++;
  }

  parseAll(): CelNode {
    const e = this.expr();
    if (this.peek().t !== 'eof') throw new CelSyntaxError(`unexpected token at ${this.peek().at}`);
    return e;
  }

  private expr(): CelNode {
    const test = this.or();
    if (!this.isOp('?')) return test;
    this.pos++;
    const then = this.or();
    this.expect(':');
    return { kind: 'conditional', test, then, otherwise: this.expr() };
  }

  private or(): CelNode {
    let left = this.and();
    while (this.isOp('||')) {
      this.pos++;
      left = { kind: 'binary', op: '||', left, right: this.and() };
    }
    return left;
  }

  private and(): CelNode {
    let left = this.relation();
    while (this.isOp('&&')) {
      this.pos++;
      left = { kind: 'binary', op: '&&', left, right: this.relation() };
    }
    return left;
  }

  private relation(): CelNode {
    let left = this.addition();
    for (;;) {
      const tok = this.peek();
      const op =
        tok.t === 'op' && RELATIONS.has(tok.value) ? tok.value : this.isKeyword('in') ? 'in' : undefined;
      if (!op) return left;
      this.pos++;
      left = { kind: 'binary', op: op as BinaryOp, left, right: this.addition() };
    }
  }

  private addition(): CelNode {
    let left = this.multiplication();
    while (this.isOp('+') || this.isOp('-')) {
      const op = (this.tokens[this.pos++] as { value: string }).value as BinaryOp;
      left = { kind: 'binary', op, left, right: this.multiplication() };
    }
    return left;
  }

  private multiplication(): CelNode {
    let left = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = (this.tokens[this.pos++] as { value: string }).value as BinaryOp;
      left = { kind: 'binary', op, left, right: this.unary() };
    }
    return left;
  }

  private unary(): CelNode {
    if (this.isOp('!') || this.isOp('-')) {
      const op = (this.tokens[this.pos++] as { value: string }).value as '!' | '-';
      const operand = this.unary();
      // A negative literal is one literal (so that -9223372036854775808 fits).
      if (op === '-' && operand.kind === 'literal' && typeof operand.value === 'bigint') {
        return { kind: 'literal', value: -operand.value };
      }
      if (op === '-' && operand.kind === 'literal' && typeof operand.value === 'number') {
        return { kind: 'literal', value: -operand.value };
      }
      return { kind: 'unary', op, operand };
    }
    return this.member();
  }

  private member(): CelNode {
    let node = this.primary();
    for (;;) {
      if (this.isOp('.')) {
        this.pos++;
        const name = this.identifier();
        if (this.isOp('(')) {
          node = { kind: 'call', fn: name, target: node, args: this.args(')') };
        } else {
          node = { kind: 'select', operand: node, field: name };
        }
      } else if (this.isOp('[')) {
        this.pos++;
        const index = this.expr();
        this.expect(']');
        node = { kind: 'index', operand: node, index };
      } else {
        return node;
      }
    }
  }

  private identifier(): string {
    const tok = this.peek();
    if (tok.t !== 'ident') throw new CelSyntaxError(`expected an identifier at ${tok.at}`);
    this.pos++;
    return tok.value;
  }

  /** A comma-separated list up to `close` (trailing comma allowed), the opening already read. */
  private args(close: string): CelNode[] {
    if (close === ')') this.expect('(');
    const out: CelNode[] = [];
    while (!this.isOp(close)) {
      out.push(this.expr());
      if (!this.isOp(',')) break;
      this.pos++;
    }
    this.expect(close);
    return out;
  }

  private primary(): CelNode {
    const tok = this.peek();
    switch (tok.t) {
      case 'num':
      case 'str':
      case 'bytes':
        this.pos++;
        return { kind: 'literal', value: tok.value };
      case 'ident': {
        this.pos++;
        if (tok.value === 'true' || tok.value === 'false')
          return { kind: 'literal', value: tok.value === 'true' };
        if (tok.value === 'null') return { kind: 'literal', value: null };
        if (RESERVED.has(tok.value) || tok.value === 'in')
          throw new CelSyntaxError(`reserved identifier ${tok.value} at ${tok.at}`);
        if (this.isOp('(')) return { kind: 'call', fn: tok.value, args: this.args(')') };
        return { kind: 'ident', name: tok.value };
      }
      case 'op':
        if (tok.value === '(') {
          this.pos++;
          const e = this.expr();
          this.expect(')');
          return e;
        }
        if (tok.value === '[') {
          this.pos++;
          return { kind: 'list', items: this.args(']') };
        }
        if (tok.value === '{') {
          this.pos++;
          const entries: { key: CelNode; value: CelNode }[] = [];
          while (!this.isOp('}')) {
            const key = this.expr();
            this.expect(':');
            entries.push({ key, value: this.expr() });
            if (!this.isOp(',')) break;
            this.pos++;
          }
          this.expect('}');
          return { kind: 'map', entries };
        }
        if (tok.value === '.') {
          // A leading dot names the root scope: `.self` is `self`.
          this.pos++;
          return this.primary();
        }
        throw new CelSyntaxError(`unexpected '${tok.value}' at ${tok.at}`);
      default:
        throw new CelSyntaxError(`unexpected end of expression`);
    }
  }
}

/** Parses one CEL expression; throws CelSyntaxError where cel-go's parser would refuse it. */
export function parseCel(source: string): CelNode {
  return new Parser(tokenize(source)).parseAll();
}
