import { fieldErr, type FieldError } from '../errors';
import type { Schema } from '../schema';
import { isPlainObject } from '../types';
import { goSyntax } from './goValues';

function child(path: string, k: string): string {
  return path ? `${path}.${k}` : k;
}

/** A canonical text of a JSON value (object keys sorted) to compare set items and map keys. */
function canonicalKey(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalKey).join(',')}]`;
  if (isPlainObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalKey(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * structurallisttype.ValidateListSetsAndMaps: items of an `x-kubernetes-list-type: set` are unique,
 * the keys of a `map` list too (after defaulting, so a defaulted key counts: 18 #24).
 */
export function listTypeErrors(x: unknown, s: Schema | undefined, path = ''): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  if (Array.isArray(x)) {
    const listType = s['x-kubernetes-list-type'];
    const seen = new Set<string>();
    if (listType === 'set') {
      x.forEach((v, i) => {
        const k = canonicalKey(v);
        if (seen.has(k)) errs.push(fieldErr.duplicate(`${path}[${i}]`, goSyntax(v)));
        seen.add(k);
      });
    } else if (listType === 'map') {
      const keys = s['x-kubernetes-list-map-keys'] ?? [];
      x.forEach((v, i) => {
        if (!isPlainObject(v)) {
          errs.push(
            fieldErr.invalidRaw(
              `${path}[${i}]`,
              goSyntax(v),
              'must be an object for an array of list-type map',
            ),
          );
          return;
        }
        const keyMap = Object.fromEntries(keys.filter((k) => k in v).map((k) => [k, v[k]]));
        const k = canonicalKey(keyMap);
        if (seen.has(k)) errs.push(fieldErr.duplicate(`${path}[${i}]`, goSyntax(keyMap)));
        seen.add(k);
      });
    }
    x.forEach((v, i) => errs.push(...listTypeErrors(v, s.items, `${path}[${i}]`)));
    return errs;
  }
  if (!isPlainObject(x)) return errs;
  const additional = isPlainObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
  for (const [k, v] of Object.entries(x))
    errs.push(...listTypeErrors(v, s.properties?.[k] ?? additional, child(path, k)));
  return errs;
}
