/** The number of Unicode code points in `text` (a surrogate pair counts once). */
export function countCodePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
