/**
 * Versions: DNS-1035 names, exactly one storage version, unique names, deprecation warnings only
 * on deprecated versions (17 #141–#149); status.storedVersions must keep the storage version and
 * only name versions that still exist (17 #143, #183).
 */
import { fieldErr, type FieldError } from '../errors';
import { goStringSlice } from './goSyntax';
import type { InternalVersion } from './internalSpec';

export function deprecationWarningErrors(v: InternalVersion, path: string): FieldError[] {
  const warning = v.deprecationWarning;
  if (warning === undefined) return [];
  const field = `${path}.deprecationWarning`;
  if (!v.deprecated) return [fieldErr.invalid(field, warning, 'can only be set for deprecated versions')];
  const errs: FieldError[] = [];
  if (Buffer.byteLength(warning) > 256)
    errs.push(fieldErr.invalid(field, warning, 'must be <= 256 characters long'));
  if (warning.length === 0) errs.push(fieldErr.invalid(field, warning, 'must not be an empty string'));
  let index = 0;
  for (const ch of warning) {
    if (/[\p{Cc}]/u.test(ch)) {
      errs.push(
        fieldErr.invalid(
          field,
          warning,
          `must only contain printable UTF-8 characters; control character found at index ${index}`,
        ),
      );
      break;
    }
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
      errs.push(
        fieldErr.invalid(
          field,
          warning,
          `must only contain printable UTF-8 characters; non-printable character found at index ${index}`,
        ),
      );
      break;
    }
    index += Buffer.byteLength(ch);
  }
  return errs;
}

export function storedVersionsErrors(
  stored: string[] | undefined,
  versions: InternalVersion[],
): FieldError[] {
  const field = 'status.storedVersions';
  if (!stored || stored.length === 0) {
    return [fieldErr.invalidRaw(field, goStringSlice(stored), 'must have at least one stored version')];
  }
  const errs: FieldError[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const v of versions) {
    const isStored = remaining.has(v.name);
    if (v.storage && !isStored) {
      errs.push(fieldErr.invalidRaw(field, goStringSlice(stored), `must have the storage version ${v.name}`));
    }
    remaining.delete(v.name);
  }
  for (const [v, i] of [...remaining].sort((a, b) => a[1] - b[1])) {
    errs.push(fieldErr.invalid(`${field}[${i}]`, v, 'must appear in spec.versions'));
  }
  return errs;
}
