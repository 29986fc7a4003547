/** The constraint named by a Postgres foreign-key violation (23503), or null for any other error. */
export function violatedForeignKey(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23503' ? (constraint ?? '') : null;
}
