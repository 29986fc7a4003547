import { createHash } from 'node:crypto';

const NAME_HASH_LENGTH = 8;

/** A short, stable digest of `text`: the suffix that keeps shortened or rewritten names distinct. */
export function nameHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, NAME_HASH_LENGTH);
}

/**
 * `name` when it fits in `maxLength`, else its first characters, `-` and the hash of the whole
 * name. The cut never ends on `-` or `.`, so a DNS-1123 name stays one.
 */
export function boundedName(name: string, maxLength: number): string {
  if (name.length <= maxLength) return name;
  const head = name.slice(0, maxLength - NAME_HASH_LENGTH - 1).replace(/[-._]+$/, '');
  return `${head}-${nameHash(name)}`;
}
