/**
 * Go's regexp.Compile (RE2 syntax, Perl flags) as far as its parse errors go: a CRD `pattern` the
 * server cannot compile is refused with Go's own message, e.g. `error parsing regexp: missing
 * closing ): `^(abc`` (17 #99) or, for JavaScript-only syntax such as lookahead, `invalid or
 * unsupported Perl syntax: `(?=`` (17 #100). Returns the message, or undefined when Go accepts it.
 */

class RegexpError extends Error {
  constructor(
    readonly code: string,
    readonly fragment: string,
  ) {
    super(`error parsing regexp: ${code}: \`${fragment}\``);
  }
}

const MISSING_PAREN = 'missing closing )';
const UNEXPECTED_PAREN = 'unexpected )';
const MISSING_BRACKET = 'missing closing ]';
const INVALID_ESCAPE = 'invalid escape sequence';
const INVALID_PERL_OP = 'invalid or unsupported Perl syntax';
const INVALID_REPEAT_OP = 'invalid nested repetition operator';
const INVALID_REPEAT_SIZE = 'invalid repeat count';
const MISSING_REPEAT_ARG = 'missing argument to repetition operator';
const TRAILING_BACKSLASH = 'trailing backslash at end of expression';
const INVALID_CHAR_RANGE = 'invalid character class range';
const INVALID_NAMED_CAPTURE = 'invalid named capture';

/** Unicode classes RE2 knows by name (general categories and the scripts seen in practice). */
const UNICODE_CLASS =
  /^(Any|[CLMNPSZ][a-z]?|Latin|Greek|Cyrillic|Han|Hiragana|Katakana|Arabic|Hebrew|Thai|Hangul|Devanagari|Common|Inherited)$/;

const PERL_CLASSES = new Set(['d', 'D', 's', 'S', 'w', 'W']);
const POSIX_CLASSES = new Set([
  'alnum',
  'alpha',
  'ascii',
  'blank',
  'cntrl',
  'digit',
  'graph',
  'lower',
  'print',
  'punct',
  'space',
  'upper',
  'word',
  'xdigit',
]);

/** What sits on the parse stack: enough to know whether a repetition has an operand. */
type Item = 'operand' | 'leftParen' | 'verticalBar' | 'empty';

class Parser {
  private readonly stack: Item[] = [];
  /** The text of the previous repetition, for Go's "invalid nested repetition" check. */
  private lastRepeat = '';

  constructor(private readonly whole: string) {}

  parse(): void {
    let t = this.whole;
    while (t !== '') {
      let repeat = '';
      const c = t[0]!;
      if (c === '(') {
        const group = t.startsWith('(?') ? this.perlGroup(t) : { rest: t.slice(1), opens: true };
        if (group.opens) this.stack.push('leftParen');
        t = group.rest;
      } else if (c === '|') {
        this.stack.push('verticalBar');
        t = t.slice(1);
      } else if (c === ')') {
        this.rightParen();
        t = t.slice(1);
      } else if (c === '^' || c === '$' || c === '.') {
        this.stack.push('operand');
        t = t.slice(1);
      } else if (c === '[') {
        t = this.charClass(t);
        this.stack.push('operand');
      } else if (c === '*' || c === '+' || c === '?') {
        const before = t;
        t = this.repeat(before, t.slice(1));
        repeat = before;
      } else if (c === '{') {
        const parsed = parseRepeatBraces(t);
        if (!parsed) {
          this.stack.push('operand');
          t = t.slice(1);
        } else {
          const { min, max, after } = parsed;
          if (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max)) {
            throw new RegexpError(INVALID_REPEAT_SIZE, t.slice(0, t.length - after.length));
          }
          const before = t;
          t = this.repeat(before, after);
          repeat = before;
        }
      } else if (c === '\\') {
        t = this.escape(t);
        this.stack.push('operand');
      } else {
        t = t.slice([...t][0]!.length);
        this.stack.push('operand');
      }
      this.lastRepeat = repeat;
    }
    if (this.stack.includes('leftParen')) throw new RegexpError(MISSING_PAREN, this.whole);
  }

  private repeat(before: string, after: string): string {
    let rest = after;
    if (rest.startsWith('?')) rest = rest.slice(1);
    if (this.lastRepeat !== '') {
      throw new RegexpError(
        INVALID_REPEAT_OP,
        this.lastRepeat.slice(0, this.lastRepeat.length - rest.length),
      );
    }
    const top = this.stack[this.stack.length - 1];
    if (top !== 'operand') {
      throw new RegexpError(MISSING_REPEAT_ARG, before.slice(0, before.length - rest.length));
    }
    return rest;
  }

  private rightParen(): void {
    const open = this.stack.lastIndexOf('leftParen');
    if (open < 0) throw new RegexpError(UNEXPECTED_PAREN, this.whole);
    this.stack.length = open;
    this.stack.push('operand');
  }

  /**
   * `(?flags)` (changes flags, opens nothing), `(?flags:`, `(?P<name>` and `(?<name>` (open a
   * group); lookaround and everything else are refused as Go refuses them.
   */
  private perlGroup(t: string): { rest: string; opens: boolean } {
    // Go 1.22 reads `(?<` as a named group: lookbehind is an invalid name (no `>`) there.
    if (t.startsWith('(?P<') || t.startsWith('(?<')) {
      const start = t.startsWith('(?P<') ? 4 : 3;
      const end = t.indexOf('>');
      if (end < 0) throw new RegexpError(INVALID_NAMED_CAPTURE, t);
      const name = t.slice(start, end);
      if (!/^[A-Za-z0-9_]+$/.test(name)) throw new RegexpError(INVALID_NAMED_CAPTURE, t.slice(0, end + 1));
      return { rest: t.slice(end + 1), opens: true };
    }
    let negated = false;
    let sawFlag = false;
    for (let i = 2; i < t.length; i++) {
      const c = t[i]!;
      if ('imsU'.includes(c)) {
        sawFlag = true;
      } else if (c === '-' && !negated) {
        negated = true;
        sawFlag = false;
      } else if ((c === ':' || c === ')') && !(negated && !sawFlag)) {
        return { rest: t.slice(i + 1), opens: c === ':' };
      } else {
        throw new RegexpError(INVALID_PERL_OP, t.slice(0, i + 1));
      }
    }
    throw new RegexpError(INVALID_PERL_OP, t);
  }

  private charClass(t: string): string {
    const whole = t;
    let i = 1;
    if (t[i] === '^') i++;
    let first = true;
    while (i < t.length && (t[i] !== ']' || first)) {
      first = false;
      if (t.startsWith('[:', i)) {
        const end = t.indexOf(':]', i + 2);
        if (end >= 0) {
          const name = t.slice(i + 2, end).replace(/^\^/, '');
          if (!POSIX_CLASSES.has(name)) throw new RegexpError(INVALID_CHAR_RANGE, t.slice(i, end + 2));
          i = end + 2;
          continue;
        }
      }
      const lo = this.classChar(t, i);
      i = lo.next;
      if (lo.isClass) continue;
      if (t[i] === '-' && t[i + 1] !== ']' && i + 1 < t.length) {
        const hi = this.classChar(t, i + 1);
        if (hi.isClass || hi.code < lo.code)
          throw new RegexpError(INVALID_CHAR_RANGE, t.slice(lo.start, hi.next));
        i = hi.next;
      }
    }
    if (i >= t.length) throw new RegexpError(MISSING_BRACKET, whole);
    return t.slice(i + 1);
  }

  private classChar(t: string, i: number): { code: number; next: number; start: number; isClass: boolean } {
    if (t[i] === '\\') {
      const e = this.escapeAt(t, i);
      return { code: e.code, next: e.next, start: i, isClass: e.isClass };
    }
    const ch = [...t.slice(i)][0]!;
    return { code: ch.codePointAt(0)!, next: i + ch.length, start: i, isClass: false };
  }

  private escape(t: string): string {
    return t.slice(this.escapeAt(t, 0).next);
  }

  private escapeAt(t: string, i: number): { code: number; next: number; isClass: boolean } {
    const c = t[i + 1];
    if (c === undefined) throw new RegexpError(TRAILING_BACKSLASH, '');
    if (PERL_CLASSES.has(c)) return { code: -1, next: i + 2, isClass: true };
    if ('AbBzC'.includes(c)) {
      if (c === 'C') throw new RegexpError(INVALID_ESCAPE, '\\C');
      return { code: -1, next: i + 2, isClass: true };
    }
    if (c === 'p' || c === 'P') {
      let name: string;
      let next: number;
      if (t[i + 2] === '{') {
        const end = t.indexOf('}', i + 3);
        if (end < 0) throw new RegexpError(INVALID_CHAR_RANGE, t.slice(i));
        name = t.slice(i + 3, end).replace(/^\^/, '');
        next = end + 1;
      } else {
        name = t[i + 2] ?? '';
        next = i + 3;
      }
      if (!UNICODE_CLASS.test(name)) throw new RegexpError(INVALID_CHAR_RANGE, t.slice(i, next));
      return { code: -1, next, isClass: true };
    }
    if (c === 'x') {
      if (t[i + 2] === '{') {
        const end = t.indexOf('}', i + 3);
        const hex = end < 0 ? '' : t.slice(i + 3, end);
        if (!/^[0-9A-Fa-f]+$/.test(hex) || parseInt(hex, 16) > 0x10ffff) {
          throw new RegexpError(INVALID_ESCAPE, t.slice(i, end < 0 ? t.length : end + 1));
        }
        return { code: parseInt(hex, 16), next: end + 1, isClass: false };
      }
      const hex = t.slice(i + 2, i + 4);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex))
        throw new RegexpError(INVALID_ESCAPE, t.slice(i, i + 2 + hex.length));
      return { code: parseInt(hex, 16), next: i + 4, isClass: false };
    }
    if (c >= '0' && c <= '7') {
      // Octal: \0 or a leading 1–7 followed by more octal digits (a lone \1–\7 is a backreference).
      const m = /^[0-7]{1,3}/.exec(t.slice(i + 1))![0];
      if (c !== '0' && m.length === 1) throw new RegexpError(INVALID_ESCAPE, t.slice(i, i + 2));
      return { code: parseInt(m, 8), next: i + 1 + m.length, isClass: false };
    }
    const simple: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };
    if (simple[c] !== undefined) return { code: simple[c]!, next: i + 2, isClass: false };
    if (c.charCodeAt(0) < 0x80 && !/[0-9A-Za-z]/.test(c))
      return { code: c.charCodeAt(0), next: i + 2, isClass: false };
    throw new RegexpError(INVALID_ESCAPE, t.slice(i, i + 1 + [...t.slice(i + 1)][0]!.length));
  }
}

/** `{n}`, `{n,}`, `{n,m}`; anything else is a literal `{` in Go. */
function parseRepeatBraces(t: string): { min: number; max: number; after: string } | undefined {
  const m = /^\{(\d+)(,(\d*))?\}/.exec(t);
  if (!m) return undefined;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
  return { min, max, after: t.slice(m[0].length) };
}

export function goRegexpError(pattern: string): string | undefined {
  if (pattern.includes('\\Q')) return undefined;
  try {
    new Parser(pattern).parse();
    return undefined;
  } catch (e) {
    if (e instanceof RegexpError) return e.message;
    throw e;
  }
}
