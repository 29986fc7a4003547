/**
 * The spec's parsing rules for the query parameters of the label filters, as pure functions (they
 * are property-tested on their own).
 */

export const DEFAULT_RELATED_LIMIT = 5;
export const MAX_RELATED_LIMIT = 20;

/**
 * `ids`: comma-separated; each entry is trimmed, and entries that are not positive integers
 * (decimal digits only, value at least 1) are dropped. The result is distinct, in first-seen
 * order: listing a label twice asks for the same thing as listing it once.
 */
export function parseLabelIds(raw: string): number[] {
  const ids = new Set<number>();
  for (const entry of raw.split(',')) {
    const trimmed = entry.trim();
    if (!/^[0-9]+$/.test(trimmed)) continue;
    const id = Number(trimmed);
    if (id >= 1) ids.add(id);
  }
  return [...ids];
}

/**
 * `limit` of the related-label endpoints, as the spec words it: absent, non-numeric (JavaScript
 * `Number` of the trimmed text is NaN) or 0 gives 5; any other number is clamped to 1..20, then
 * truncated to an integer (so 0.5 is 1, and 7.9 is 7).
 */
export function relatedLimit(raw: unknown): number {
  if (typeof raw !== 'string') return DEFAULT_RELATED_LIMIT;
  const n = Number(raw.trim());
  if (Number.isNaN(n) || n === 0) return DEFAULT_RELATED_LIMIT;
  return Math.trunc(Math.min(MAX_RELATED_LIMIT, Math.max(1, n)));
}
