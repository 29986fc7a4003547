/**
 * A recursive-descent parser of the CEL grammar (CEL.g4's precedence: ?:, ||, &&, relations, + -,
 * * / %, unary ! and -, member access), building the AST cel-go builds, with its macros expanded.
 * Syntax errors: an operand missing at the end of the input is reported in ANTLR's words, as the
 * real server does (17 #75); any other malformed input is not emulated.
 */
import { ACCUMULATOR, type Expr, type Literal, type LiteralType } from './ast';
import { NotEmulatedCel, type Issue } from './errors';
import { tokenize, type Token } from './lexer';

/** What ANTLR expects where an operand must start (the recorded 17 #75 message). */
const OPERAND_EXPECTED =
  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

const RELATIONS: Record<string, string> = {
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  '==': '_==_',
  '!=': '_!=_',
  in: '@in',
};

class SyntaxIssue extends Error {
  constructor(readonly issue: Issue) {
    super(issue.message);
  }
}

class Parser {
  private pos = 0;
  private nextId = 1;

  constructor(private readonly tokens: Token[]) {}

  private get tok(): Token {
    return this.tokens[this.pos]!;
  }

  private is(text: string): boolean {
    const t = this.tok;
    return (t.kind === 'punct' || (t.kind === 'ident' && text === 'in')) && t.text === text;
  }

  private take(): Token {
    return this.tokens[this.pos++]!;
  }

  private expect(text: string): Token {
    if (!this.is(text)) this.notEmulated();
    return this.take();
  }

  private id(): number {
    return this.nextId++;
  }

  /** Where an operand should start but the input has ended: ANTLR's message (17 #75). */
  private missingOperand(): never {
    const t = this.tok;
    if (t.kind === 'eof') {
      throw new SyntaxIssue({
        offset: t.offset,
        message: `Syntax error: mismatched input '<EOF>' expecting ${OPERAND_EXPECTED}`,
      });
    }
    this.notEmulated();
  }

  /** Any other syntax error: ANTLR's messages and error recovery are not emulated. */
  private notEmulated(): never {
    const t = this.tok;
    throw new NotEmulatedCel(
      `a CEL syntax error at ${t.kind === 'eof' ? 'the end' : JSON.stringify(t.text)}`,
    );
  }

  parse(): Expr {
    const e = this.expr();
    if (this.tok.kind !== 'eof') this.notEmulated();
    return e;
  }

  private call(offset: number, fn: string, args: Expr[], target?: Expr): Expr {
    return { kind: 'call', id: this.id(), offset, fn, args, ...(target ? { target } : {}) };
  }

  private expr(): Expr {
    const cond = this.or();
    if (!this.is('?')) return cond;
    const q = this.take();
    const ifTrue = this.or();
    this.expect(':');
    const ifFalse = this.expr();
    return this.call(q.offset, '_?_:_', [cond, ifTrue, ifFalse]);
  }

  /** cel-go balances chains of || and && into a balanced tree of calls. */
  private chain(op: string, fn: string, next: () => Expr): Expr {
    const terms = [next()];
    const ops: Token[] = [];
    while (this.is(op)) {
      ops.push(this.take());
      terms.push(next());
    }
    const build = (lo: number, hi: number): Expr => {
      const mid = Math.floor((lo + hi + 1) / 2);
      const left = mid === lo ? terms[mid]! : build(lo, mid - 1);
      const right = mid === hi ? terms[mid + 1]! : build(mid + 1, hi);
      return this.call(ops[mid]!.offset, fn, [left, right]);
    };
    return ops.length === 0 ? terms[0]! : build(0, ops.length - 1);
  }

  private or(): Expr {
    return this.chain('||', '_||_', () => this.and());
  }

  private and(): Expr {
    return this.chain('&&', '_&&_', () => this.relation());
  }

  private relation(): Expr {
    let left = this.calc();
    for (;;) {
      const t = this.tok;
      const fn = (t.kind === 'punct' || (t.kind === 'ident' && t.text === 'in')) && RELATIONS[t.text];
      if (!fn) return left;
      this.take();
      left = this.call(t.offset, fn, [left, this.calc()]);
    }
  }

  private calc(): Expr {
    let left = this.mult();
    while (this.is('+') || this.is('-')) {
      const op = this.take();
      left = this.call(op.offset, `_${op.text}_`, [left, this.mult()]);
    }
    return left;
  }

  private mult(): Expr {
    let left = this.unary();
    while (this.is('*') || this.is('/') || this.is('%')) {
      const op = this.take();
      left = this.call(op.offset, `_${op.text}_`, [left, this.unary()]);
    }
    return left;
  }

  private unary(): Expr {
    for (const op of ['!', '-']) {
      if (!this.is(op)) continue;
      // `-1` is a negative literal, not a negation (CEL.g4's literal rule takes the sign).
      const next = this.tokens[this.pos + 1]!;
      if (op === '-' && ['int', 'double'].includes(next.kind)) break;
      const ops: Token[] = [];
      while (this.is(op)) ops.push(this.take());
      // After `-` ANTLR expects no `!`: its message there differs from the recorded one.
      if (op === '-' && this.tok.kind === 'eof') this.notEmulated();
      const target = this.member();
      return ops.length % 2 === 0 ? target : this.call(ops[0]!.offset, op === '!' ? '!_' : '-_', [target]);
    }
    return this.member();
  }

  private member(): Expr {
    let e = this.primary();
    for (;;) {
      if (this.is('.')) {
        const dot = this.take();
        if (this.is('?')) throw new NotEmulatedCel('optional field selection (.?) in CEL');
        if (this.tok.kind !== 'ident' || ['true', 'false', 'null', 'in'].includes(this.tok.text))
          this.notEmulated();
        const name = this.take().text;
        if (this.is('(')) {
          const open = this.take();
          e = this.memberCallOrMacro(open.offset, name, e, this.args(')'));
        } else {
          e = { kind: 'select', id: this.id(), offset: dot.offset, operand: e, field: name, testOnly: false };
        }
      } else if (this.is('[')) {
        const open = this.take();
        if (this.is('?')) throw new NotEmulatedCel('optional indexing ([?]) in CEL');
        if (this.tok.kind === 'eof') this.notEmulated();
        const index = this.expr();
        this.expect(']');
        e = this.call(open.offset, '_[_]', [e, index]);
      } else {
        return e;
      }
    }
  }

  /** Arguments or elements: ANTLR's expectations at the end of input there include the closing token. */
  private args(close: string): Expr[] {
    const out: Expr[] = [];
    while (!this.is(close)) {
      if (this.tok.kind === 'eof') this.notEmulated();
      out.push(this.expr());
      if (!this.is(',')) break;
      this.take();
    }
    this.expect(close);
    return out;
  }

  private literal(t: Token, type: LiteralType, value: unknown): Expr {
    return { kind: 'literal', id: this.id(), offset: t.offset, type, value: value as Literal['value'] };
  }

  private primary(): Expr {
    const t = this.tok;
    if (t.kind === 'eof') this.missingOperand();
    if (t.kind === 'punct' && t.text === '-') {
      // A signed literal.
      this.take();
      const n = this.take();
      return n.kind === 'int'
        ? this.literal(t, 'int', -(n.value as bigint))
        : this.literal(t, 'double', -(n.value as number));
    }
    if (
      t.kind === 'int' ||
      t.kind === 'uint' ||
      t.kind === 'double' ||
      t.kind === 'string' ||
      t.kind === 'bytes'
    ) {
      this.take();
      return this.literal(t, t.kind, t.value);
    }
    if (t.kind === 'ident') {
      if (t.text === 'true' || t.text === 'false') {
        this.take();
        return this.literal(t, 'bool', t.text === 'true');
      }
      if (t.text === 'null') {
        this.take();
        return this.literal(t, 'null', null);
      }
      if (t.text === 'in') this.notEmulated();
      this.take();
      if (this.is('(')) {
        const open = this.take();
        return this.globalCallOrMacro(open.offset, t.text, this.args(')'));
      }
      if (this.is('{')) throw new NotEmulatedCel('CEL message construction (Type{…})');
      return { kind: 'ident', id: this.id(), offset: t.offset, name: t.text };
    }
    if (t.text === '.') throw new NotEmulatedCel('a leading-dot CEL identifier');
    if (t.text === '(') {
      this.take();
      const e = this.expr();
      this.expect(')');
      return e;
    }
    if (t.text === '[') {
      this.take();
      return { kind: 'list', id: this.id(), offset: t.offset, elements: this.args(']') };
    }
    if (t.text === '{') {
      this.take();
      const entries: { key: Expr; value: Expr }[] = [];
      while (!this.is('}')) {
        if (this.tok.kind === 'eof') this.notEmulated();
        const key = this.expr();
        this.expect(':');
        entries.push({ key, value: this.expr() });
        if (!this.is(',')) break;
        this.take();
      }
      this.expect('}');
      return { kind: 'map', id: this.id(), offset: t.offset, entries };
    }
    return this.notEmulated();
  }

  private globalCallOrMacro(offset: number, fn: string, args: Expr[]): Expr {
    if (fn === 'has' && args.length === 1) {
      const arg = args[0]!;
      if (arg.kind !== 'select') throw new NotEmulatedCel('has() of something other than a field selection');
      return {
        kind: 'select',
        id: this.id(),
        offset,
        operand: arg.operand,
        field: arg.field,
        testOnly: true,
      };
    }
    return this.call(offset, fn, args);
  }

  private memberCallOrMacro(offset: number, fn: string, target: Expr, args: Expr[]): Expr {
    const macro = ['all', 'exists', 'exists_one', 'filter'].includes(fn) && args.length === 2;
    const mapMacro = fn === 'map' && (args.length === 2 || args.length === 3);
    if (!macro && !mapMacro) return this.call(offset, fn, args, target);
    const v = args[0]!;
    if (v.kind !== 'ident') throw new NotEmulatedCel('a CEL macro whose first argument is not a simple name');
    const ident = (name: string): Expr => ({ kind: 'ident', id: this.id(), offset, name });
    const lit = (type: LiteralType, value: unknown): Expr => ({
      kind: 'literal',
      id: this.id(),
      offset,
      type,
      value: value as never,
    });
    const accu = () => ident(ACCUMULATOR);
    const call = (f: string, ...a: Expr[]) => this.call(offset, f, a);
    const list = (...elements: Expr[]): Expr => ({ kind: 'list', id: this.id(), offset, elements });
    let init: Expr;
    let condition: Expr;
    let step: Expr;
    let result: Expr = accu();
    switch (fn) {
      case 'all':
        init = lit('bool', true);
        condition = call('@not_strictly_false', accu());
        step = call('_&&_', accu(), args[1]!);
        break;
      case 'exists':
        init = lit('bool', false);
        condition = call('@not_strictly_false', call('!_', accu()));
        step = call('_||_', accu(), args[1]!);
        break;
      case 'exists_one':
        init = lit('int', 0n);
        condition = lit('bool', true);
        step = call('_?_:_', args[1]!, call('_+_', accu(), lit('int', 1n)), accu());
        result = call('_==_', accu(), lit('int', 1n));
        break;
      case 'filter':
        init = list();
        condition = lit('bool', true);
        step = call('_?_:_', args[1]!, call('_+_', accu(), list(ident(v.name))), accu());
        break;
      default: {
        init = list();
        condition = lit('bool', true);
        const mapped = call('_+_', accu(), list(args[args.length - 1]!));
        step = args.length === 3 ? call('_?_:_', args[1]!, mapped, accu()) : mapped;
      }
    }
    return {
      kind: 'comprehension',
      id: this.id(),
      offset,
      iterVar: v.name,
      iterRange: target,
      accuVar: ACCUMULATOR,
      accuInit: init,
      loopCondition: condition,
      loopStep: step,
      result,
    };
  }
}

export type ParseResult = { ok: true; expr: Expr } | { ok: false; issues: Issue[] };

export function parse(source: string): ParseResult {
  try {
    return { ok: true, expr: new Parser(tokenize(source)).parse() };
  } catch (e) {
    if (e instanceof SyntaxIssue) return { ok: false, issues: [e.issue] };
    throw e;
  }
}
