/**
 * encoding/json's syntax errors, for the server's checks that unmarshal user data (a
 * dockerconfigjson Secret, 19 #87): a small scanner that stops where Go's does, with its texts.
 */

class SyntaxFailure extends Error {}

function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const quoted = JSON.stringify(c);
  return `'${quoted.slice(1, -1)}'`;
}

class Scanner {
  private i = 0;
  constructor(private readonly s: string) {}

  private fail(context: string): never {
    if (this.i >= this.s.length) throw new SyntaxFailure('unexpected end of JSON input');
    throw new SyntaxFailure(`invalid character ${quoteChar(this.s[this.i]!)} ${context}`);
  }

  private ws(): void {
    while (' \t\n\r'.includes(this.s[this.i] ?? 'x')) this.i++;
  }

  private peek(): string | undefined {
    return this.s[this.i];
  }

  document(): void {
    this.value();
    this.ws();
    if (this.i < this.s.length) this.fail('after top-level value');
  }

  private value(): void {
    this.ws();
    const c = this.peek();
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) {
      if (c === word[0]) return this.literal(word);
    }
    this.fail('looking for beginning of value');
  }

  private object(): void {
    this.i++;
    this.ws();
    if (this.peek() === '}') {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      if (this.peek() !== '"') this.fail('looking for beginning of object key string');
      this.string();
      this.ws();
      if (this.peek() !== ':') this.fail('after object key');
      this.i++;
      this.value();
      this.ws();
      const c = this.peek();
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === '}') {
        this.i++;
        return;
      }
      this.fail('after object key:value pair');
    }
  }

  private array(): void {
    this.i++;
    this.ws();
    if (this.peek() === ']') {
      this.i++;
      return;
    }
    for (;;) {
      this.value();
      this.ws();
      const c = this.peek();
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === ']') {
        this.i++;
        return;
      }
      this.fail('after array element');
    }
  }

  private string(): void {
    this.i++;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('in string literal');
      if (c === '"') {
        this.i++;
        return;
      }
      if (c < ' ') this.fail('in string literal');
      this.i++;
      if (c !== '\\') continue;
      const e = this.peek();
      if (e === undefined || !'"\\/bfnrtu'.includes(e)) this.fail('in string escape code');
      this.i++;
      if (e === 'u') {
        for (let k = 0; k < 4; k++) {
          if (!/[0-9a-fA-F]/.test(this.peek() ?? '')) this.fail('in \\u hexadecimal character escape');
          this.i++;
        }
      }
    }
  }

  private digits(): void {
    while (/[0-9]/.test(this.peek() ?? '')) this.i++;
  }

  private number(): void {
    if (this.peek() === '-') this.i++;
    if (this.peek() === '0') this.i++;
    else if (/[1-9]/.test(this.peek() ?? '')) this.digits();
    else this.fail('in numeric literal');
    if (this.peek() === '.') {
      this.i++;
      if (!/[0-9]/.test(this.peek() ?? '')) this.fail('after decimal point in numeric literal');
      this.digits();
    }
    if (this.peek() === 'e' || this.peek() === 'E') {
      this.i++;
      if (this.peek() === '+' || this.peek() === '-') this.i++;
      if (!/[0-9]/.test(this.peek() ?? '')) this.fail('in exponent of numeric literal');
      this.digits();
    }
  }

  private literal(word: string): void {
    this.i++;
    for (const expected of word.slice(1)) {
      if (this.peek() !== expected) this.fail(`in literal ${word} (expecting ${quoteChar(expected)})`);
      this.i++;
    }
  }
}

/** json.Unmarshal(text, &map[string]interface{}{})'s error, or undefined when it decodes. */
export function unmarshalObjectError(text: string): string | undefined {
  try {
    new Scanner(text).document();
  } catch (e) {
    if (e instanceof SyntaxFailure) return e.message;
    throw e;
  }
  const value: unknown = JSON.parse(text);
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return undefined;
  const kind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}
