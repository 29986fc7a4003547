import { isPlainObject } from '../types';

/**
 * Go's `%v` of a decoded JSON value, as apimachinery prints values inside error texts
 * (`[map[]] is of the type []interface {}`).
 */
export function goPlain(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goPlain).join(' ')}]`;
  if (isPlainObject(v)) {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${k}:${goPlain(v[k])}`);
    return `map[${entries.join(' ')}]`;
  }
  return String(v);
}

/** Go's `%T` of a decoded JSON value (unstructured: int64 for integral numbers, float64 otherwise). */
export function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (isPlainObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return 'string';
}

/** Go's `%#v` of a decoded JSON value (field.Invalid and Duplicate print values so). */
export function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  const o = v as Record<string, unknown>;
  const entries = Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${goSyntax(o[k])}`);
  return `map[string]interface {}{${entries.join(', ')}}`;
}
