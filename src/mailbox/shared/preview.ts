import { firstCodePoints } from '../../domain/codePoints';

/** Length of a preview, in Unicode code points (spec: "first 200 characters"). */
export const PREVIEW_LENGTH = 200;

/** The first 200 characters of a body, counted in code points (domain/codePoints.ts). */
export function previewOf(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  return firstCodePoints(text, PREVIEW_LENGTH);
}
