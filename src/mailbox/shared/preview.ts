/** Length of a preview, in Unicode code points (spec: "first 200 characters"). */
export const PREVIEW_LENGTH = 200;

/**
 * The first 200 characters of a body, counted in code points: a character outside the BMP (an
 * emoji) counts once and is never cut in half, whatever its UTF-16 or UTF-8 length. Grapheme
 * clusters (a flag, a family emoji, a letter with combining marks) may be cut between code points.
 */
export function previewOf(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  // Fast path: with no more UTF-16 units than the limit, there cannot be more code points.
  if (text.length <= PREVIEW_LENGTH) return text;
  let end = 0;
  for (let count = 0; count < PREVIEW_LENGTH && end < text.length; count++) {
    const unit = text.charCodeAt(end);
    const isPairStart = unit >= 0xd800 && unit <= 0xdbff && end + 1 < text.length;
    const next = isPairStart ? text.charCodeAt(end + 1) : 0;
    end += isPairStart && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return text.slice(0, end);
}
