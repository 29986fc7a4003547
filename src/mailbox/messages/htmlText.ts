import { forwardSearch, type Occurrence } from './forwardSearch';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** An entity where a `&` is, read there only (sticky): `&name;`, `&#digits;`, `&#xhex;`. */
const ENTITY = /&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/iy;

/** What may follow a `<` that opens a tag (or a comment, a doctype, a processing instruction). */
const TAG_START = /^[a-zA-Z/!?]$/;
/** Elements whose content is not text: dropped with their content when they are closed. */
const HIDDEN_ELEMENT = /^(script|style|head)\b/i;
/** Tags that end a line: `<br>` (with or without attributes) and the ends of blocks. */
const LINE_BREAK = /^(?:br(?:[\s/][\s\S]*)?|\/(?:p|div|li|tr|h[1-6]|blockquote|pre|table)\s*)$/i;

/** How much HTML a conversion reads before it lets the event loop run (`textOfHtmlInTurns`). */
const HTML_CHARACTERS_PER_TURN = 64 * 1024;

type Search = (from: number) => Occurrence | null;

const LT = 0x3c;
const AMP = 0x26;
const NEWLINE = 0x0a;

/** Blank space that folds into one space: space, tab, form feed, vertical tab, no-break space. */
const isBlank = (code: number) =>
  code === 0x20 || code === 0x09 || code === 0x0c || code === 0x0b || code === 0xa0;

/** The text being written: UTF-16 code units, blank runs folded as they come. */
class FoldedText {
  private units = new Uint16Array(1024);
  private length = 0;
  private blank = false;
  private newlines = 0;

  /** A code unit of text: blank space and line breaks wait until text follows them. */
  put(code: number): void {
    if (code === NEWLINE) this.newlines++;
    else if (isBlank(code)) this.blank = true;
    else {
      // Blank space at the start is dropped, within the text it becomes one space, or the line
      // breaks it holds (two at most: a blank line), and at the end it is dropped.
      if (this.length > 0) {
        if (this.newlines > 0) this.push(NEWLINE);
        if (this.newlines > 1) this.push(NEWLINE);
        if (this.newlines === 0 && this.blank) this.push(0x20);
      }
      this.newlines = 0;
      this.blank = false;
      this.push(code);
    }
  }

  putString(text: string): void {
    for (let i = 0; i < text.length; i++) this.put(text.charCodeAt(i));
  }

  toString(): string {
    const parts: string[] = [];
    for (let start = 0; start < this.length; start += 8192) {
      const units = this.units.subarray(start, Math.min(start + 8192, this.length));
      parts.push(String.fromCharCode.apply(null, units as unknown as number[]));
    }
    // What folding does not know as blank (a carriage return, other Unicode space) at either end.
    return parts.join('').trim();
  }

  private push(code: number): void {
    if (this.length === this.units.length) {
      const grown = new Uint16Array(this.units.length * 2);
      grown.set(this.units);
      this.units = grown;
    }
    this.units[this.length++] = code;
  }
}

/**
 * The conversion of one HTML body, in steps: `advance` reads a bounded amount and says whether it
 * is done. Every character is read once and every search resumes where the last one stopped
 * (`forwardSearch`): nothing is nested or parsed into a tree, so its time is linear in the length of
 * the HTML whatever that holds (issue 38: 200,000 nested `<div>`s, unclosed comments or tags).
 */
class HtmlConversion {
  private at = 0;
  private readonly text = new FoldedText();
  private readonly nextTagEnd: Search;
  private readonly nextCommentEnd: Search;
  private readonly nextClosing = new Map<string, Search>();

  constructor(private readonly html: string) {
    this.nextTagEnd = forwardSearch(html, />/);
    this.nextCommentEnd = forwardSearch(html, /-->/);
  }

  /** Reads about `budget` characters more (a tag or an entity is read whole); true when done. */
  advance(budget: number): boolean {
    const { html } = this;
    const stop = Math.min(html.length, this.at + budget);
    while (this.at < stop) {
      const code = html.charCodeAt(this.at);
      if (code === LT) this.readTag();
      else if (code === AMP) this.readEntity();
      else {
        this.text.put(code);
        this.at++;
      }
    }
    return this.at >= html.length;
  }

  result(): string {
    return this.text.toString();
  }

  /** At a `<`: a comment, a tag or a hidden element is skipped; a `<` that opens nothing is text. */
  private readTag(): void {
    const { html } = this;
    const open = this.at;
    // As HTML reads it: only a letter, `/`, `!` or `?` after `<` opens a tag (`1 < 2` is text).
    if (!TAG_START.test(html.charAt(open + 1))) {
      this.text.put(LT);
      this.at++;
      return;
    }
    if (html.startsWith('<!--', open)) {
      const comment = this.nextCommentEnd(open + 4);
      if (comment) {
        this.at = comment.end;
        return;
      }
    }
    const tagEnd = this.nextTagEnd(open + 1);
    if (!tagEnd) {
      // No `>` anywhere after it: this `<` is text.
      this.text.put(LT);
      this.at++;
      return;
    }
    const tag = html.slice(open + 1, tagEnd.start);
    this.at = tagEnd.end;
    const hidden = HIDDEN_ELEMENT.exec(tag);
    if (hidden) {
      const closing = this.closingOf(hidden[1]!.toLowerCase())(this.at);
      // An element never closed loses only its tag, as any other.
      if (closing) this.at = closing.end;
    } else if (LINE_BREAK.test(tag)) {
      this.text.put(NEWLINE);
    }
  }

  /** At a `&`: `&name;`, `&#digits;` or `&#xhex;` decoded; anything else is text. */
  private readEntity(): void {
    ENTITY.lastIndex = this.at;
    const entity = ENTITY.exec(this.html);
    if (!entity) {
      this.text.put(AMP);
      this.at++;
      return;
    }
    this.text.putString(decodeEntity(entity[0], entity[1]!));
    this.at += entity[0].length;
  }

  private closingOf(name: string): Search {
    let next = this.nextClosing.get(name);
    if (!next) {
      next = forwardSearch(this.html, new RegExp(`</${name}\\s*>`, 'i'));
      this.nextClosing.set(name, next);
    }
    return next;
  }
}

/** What `&…;` stands for, or the entity itself when it stands for nothing known. */
function decodeEntity(entity: string, name: string): string {
  if (name.startsWith('#')) {
    const code =
      name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  }
  return ENTITIES[name.toLowerCase()] ?? entity;
}

/**
 * The readable text of an HTML body, good enough for a preview and for search: scripts, styles,
 * heads and comments go, line breaks and block ends become line breaks, other tags go, the common
 * entities are decoded and runs of blank space are folded. It is not a renderer.
 */
export function textOfHtml(html: string): string {
  const conversion = new HtmlConversion(html);
  conversion.advance(Infinity);
  return conversion.result();
}

/**
 * `textOfHtml`, letting the event loop run after every `charactersPerTurn` characters of HTML, so
 * that a message of many megabytes never holds the service (its health checks, other requests)
 * for longer than one such step.
 */
export async function textOfHtmlInTurns(
  html: string,
  charactersPerTurn = HTML_CHARACTERS_PER_TURN,
): Promise<string> {
  const conversion = new HtmlConversion(html);
  while (!conversion.advance(charactersPerTurn)) await new Promise((resolve) => setImmediate(resolve));
  return conversion.result();
}
