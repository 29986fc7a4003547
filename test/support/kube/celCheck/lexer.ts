/**
 * CEL's lexical grammar (cel-spec): identifiers, int/uint/double literals, quoted, raw and
 * triple-quoted strings and bytes, operators. Offsets are code-point positions in the source,
 * which is how cel-go reports locations.
 */
import { NotEmulatedCel } from './errors';

type TokenKind = 'ident' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'punct' | 'eof';

export interface Token {
  kind: TokenKind;
  /** The source text (for punctuation and identifiers, the token itself). */
  text: string;
  /** Decoded value of a literal. */
  value?: bigint | number | string | Uint8Array;
  /** Code-point offset of the first character. */
  offset: number;
}

const PUNCT = [
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '<',
  '>',
  '!',
  '+',
  '-',
  '*',
  '/',
  '%',
  '?',
  ':',
  '.',
  ',',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
];

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\u0007',
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

function unescape(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = body[++i]!;
    if (SIMPLE_ESCAPES[n] !== undefined) out += SIMPLE_ESCAPES[n];
    else if (n === 'x' || n === 'X') {
      out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (n === 'u') {
      out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 5), 16));
      i += 4;
    } else if (n === 'U') {
      out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 9), 16));
      i += 8;
    } else if (n >= '0' && n <= '3') {
      out += String.fromCodePoint(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else {
      throw new NotEmulatedCel(`the CEL escape sequence \\${n}`);
    }
  }
  return out;
}

export function tokenize(source: string): Token[] {
  const chars = [...source];
  const text = (from: number, to: number) => chars.slice(from, to).join('');
  const tokens: Token[] = [];
  let i = 0;
  while (i < chars.length) {
    const c = chars[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && chars[i + 1] === '/') {
      while (i < chars.length && chars[i] !== '\n') i++;
      continue;
    }
    const start = i;
    // A string or bytes literal may carry the prefixes r (raw) and b (bytes), in either order.
    const quoteAt = /^([rRbB]{0,2})(["'])/.exec(text(i, i + 3));
    const prefixOk = quoteAt && (quoteAt[1]!.length < 2 || new Set(quoteAt[1]!.toLowerCase()).size === 2);
    if (quoteAt && prefixOk) {
      const prefix = quoteAt[1]!.toLowerCase();
      const raw = prefix.includes('r');
      const bytes = prefix.includes('b');
      i += prefix.length;
      const q = chars[i]!;
      const triple = chars[i + 1] === q && chars[i + 2] === q;
      const delim = triple ? q.repeat(3) : q;
      i += delim.length;
      const bodyStart = i;
      for (;;) {
        if (i >= chars.length) throw new NotEmulatedCel('a CEL string literal that is not closed');
        if (!raw && chars[i] === '\\') {
          i += 2;
          continue;
        }
        if (text(i, i + delim.length) === delim) break;
        if (!triple && chars[i] === '\n') throw new NotEmulatedCel('a CEL string literal that is not closed');
        i++;
      }
      const body = text(bodyStart, i);
      i += delim.length;
      const decoded = raw ? body : unescape(body);
      tokens.push({
        kind: bytes ? 'bytes' : 'string',
        text: text(start, i),
        value: bytes ? new TextEncoder().encode(decoded) : decoded,
        offset: start,
      });
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      while (i < chars.length && /[A-Za-z0-9_]/.test(chars[i]!)) i++;
      tokens.push({ kind: 'ident', text: text(start, i), offset: start });
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(chars[i + 1] ?? ''))) {
      const m = /^(0[xX][0-9a-fA-F]+[uU]?|(\d+\.\d+|\.\d+|\d+)([eE][+-]?\d+)?[uU]?)/.exec(
        text(i, chars.length),
      )!;
      const lit = m[0];
      i += lit.length;
      if (/^0[xX]/.test(lit)) {
        const unsigned = /[uU]$/.test(lit);
        tokens.push({
          kind: unsigned ? 'uint' : 'int',
          text: lit,
          value: BigInt(lit.replace(/[uU]$/, '')),
          offset: start,
        });
      } else if (/[.eE]/.test(lit) && !/[uU]$/.test(lit)) {
        tokens.push({ kind: 'double', text: lit, value: Number(lit), offset: start });
      } else if (/[uU]$/.test(lit)) {
        tokens.push({ kind: 'uint', text: lit, value: BigInt(lit.slice(0, -1)), offset: start });
      } else {
        tokens.push({ kind: 'int', text: lit, value: BigInt(lit), offset: start });
      }
      continue;
    }
    const two = text(i, i + 2);
    const op = PUNCT.includes(two) ? two : PUNCT.includes(c) ? c : undefined;
    if (!op)
      throw new NotEmulatedCel(
        `the character ${JSON.stringify(c)} in a CEL expression (a token recognition error)`,
      );
    tokens.push({ kind: 'punct', text: op, offset: start });
    i += op.length;
  }
  tokens.push({ kind: 'eof', text: '<EOF>', offset: chars.length });
  return tokens;
}
