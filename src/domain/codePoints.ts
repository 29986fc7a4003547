/**
 * Text measured in Unicode code points, as people count characters: a character outside the BMP
 * (an emoji) counts once and is never cut in half, whatever its UTF-16 or UTF-8 length. Grapheme
 * clusters (a flag, a family emoji, a letter with combining marks) may still be cut between code
 * points. These walk UTF-16 units rather than building arrays: they run on megabytes of output.
 */

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** The number of code points in `text` (a surrogate pair counts once). */
export function countCodePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** The first `count` code points of `text`. */
export function firstCodePoints(text: string, count: number): string {
  // With no more UTF-16 units than `count`, there cannot be more code points.
  if (text.length <= count) return text;
  let end = 0;
  for (let taken = 0; taken < count && end < text.length; taken++) {
    const pair = isHighSurrogate(text.charCodeAt(end)) && isLowSurrogate(text.charCodeAt(end + 1));
    end += pair ? 2 : 1;
  }
  return text.slice(0, end);
}

/** The last `count` code points of `text`, walking back from the end. */
export function lastCodePoints(text: string, count: number): string {
  let start = text.length;
  for (let taken = 0; taken < count && start > 0; taken++) {
    const pair = isLowSurrogate(text.charCodeAt(start - 1)) && isHighSurrogate(text.charCodeAt(start - 2));
    start -= pair ? 2 : 1;
  }
  return text.slice(start);
}
