import { OBJECT_META_FIELDS, type Schema } from '../schema';
import { clone, isPlainObject, type Obj } from '../types';

/**
 * What the apiextensions decoder does to a custom resource before anything validates it
 * (customresource_handler's schema coercer): unknown ObjectMeta fields dropped, unknown fields
 * pruned, non-nullable nulls without a default dropped, embedded resources' metadata coerced.
 * Returns the unknown field paths in the order the server's warnings list them.
 */
export function coerce(obj: Obj, schema: Schema): string[] {
  const metaUnknown = isPlainObject(obj.metadata) ? dropUnknownMeta(obj.metadata, 'metadata') : [];
  const pruned: string[] = [];
  pruneObjectRoot(obj, schema, pruned);
  pruneNulls(obj, schema);
  const embedded: string[] = [];
  coerceEmbedded(obj, schema, '', embedded);
  return [...metaUnknown, ...pruned.sort(), ...embedded.sort()];
}

function key(parent: string, k: string): string {
  return parent ? `${parent}.${k}` : k;
}

const TYPE_META = new Set(['apiVersion', 'kind', 'metadata']);

/** The root is an embedded resource: apiVersion, kind and metadata are never pruned there. */
function pruneObjectRoot(obj: Obj, schema: Schema, out: string[]): void {
  prune(obj, { ...schema, 'x-kubernetes-embedded-resource': true }, '', out);
}

/** structuralpruning.Prune: drops what the schema does not declare, recording each path. */
function prune(x: unknown, s: Schema | undefined, path: string, out: string[]): void {
  if (s?.['x-kubernetes-preserve-unknown-fields']) return skipPrune(x, s, path, out);
  if (Array.isArray(x)) {
    x.forEach((v, i) => prune(v, s?.items, `${path}[${i}]`, out));
    return;
  }
  if (!isPlainObject(x)) return;
  for (const k of Object.keys(x)) {
    if (s?.['x-kubernetes-embedded-resource'] && TYPE_META.has(k)) continue;
    const prop = s?.properties?.[k];
    const additional = isPlainObject(s?.additionalProperties)
      ? (s.additionalProperties as Schema)
      : undefined;
    if (prop) prune(x[k], prop, key(path, k), out);
    else if (s && additional) prune(x[k], additional, key(path, k), out);
    else {
      // apiVersion/kind/metadata at the root are kept quietly (a root without `metadata` schema).
      if (!(TYPE_META.has(k) && path === '')) out.push(key(path, k));
      delete x[k];
    }
  }
}

/** Under preserve-unknown-fields only the declared parts are pruned. */
function skipPrune(x: unknown, s: Schema, path: string, out: string[]): void {
  if (Array.isArray(x)) {
    if (s.items) x.forEach((v, i) => skipPrune(v, s.items!, `${path}[${i}]`, out));
    return;
  }
  if (!isPlainObject(x)) return;
  const additional = isPlainObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
  for (const k of Object.keys(x)) {
    if (s['x-kubernetes-embedded-resource'] && TYPE_META.has(k)) continue;
    const prop = s.properties?.[k];
    if (prop) prune(x[k], prop, key(path, k), out);
    else if (additional) prune(x[k], additional, key(path, k), out);
  }
}

/** PruneNonNullableNullsWithoutDefaults: a `null` the schema neither allows nor defaults is dropped. */
function pruneNulls(x: unknown, s: Schema | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    x.forEach((v) => pruneNulls(v, s.items));
    return;
  }
  if (!isPlainObject(x)) return;
  const additional = isPlainObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
  for (const [k, v] of Object.entries(x)) {
    const prop = s.properties?.[k] ?? additional;
    if (!prop) continue;
    if (v === null && !prop.nullable && prop.default === undefined) delete x[k];
    else pruneNulls(v, prop);
  }
}

/** ObjectMeta round trip: unknown fields dropped (and reported), empty ones omitted. */
function dropUnknownMeta(meta: Obj, path: string): string[] {
  const unknown: string[] = [];
  for (const k of Object.keys(meta)) {
    if (!OBJECT_META_FIELDS.has(k)) {
      unknown.push(`${path}.${k}`);
      delete meta[k];
    }
  }
  return unknown.sort();
}

function isEmpty(v: unknown): boolean {
  if (v === null || v === '' || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isPlainObject(v) && Object.keys(v).length === 0;
}

/** schemaobjectmeta.Coerce: the metadata of embedded resources (not the root's) goes through ObjectMeta. */
function coerceEmbedded(x: unknown, s: Schema | undefined, path: string, out: string[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    x.forEach((v, i) => coerceEmbedded(v, s.items, `${path}[${i}]`, out));
    return;
  }
  if (!isPlainObject(x)) return;
  if (s['x-kubernetes-embedded-resource'] && path !== '' && isPlainObject(x.metadata)) {
    out.push(...dropUnknownMeta(x.metadata, key(path, 'metadata')));
    for (const [k, v] of Object.entries(x.metadata)) if (isEmpty(v)) delete x.metadata[k];
  }
  const additional = isPlainObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
  for (const [k, v] of Object.entries(x)) {
    const prop = s.properties?.[k] ?? additional;
    if (prop) coerceEmbedded(v, prop, key(path, k), out);
  }
}

/** structuraldefaulting.Default: a missing (or non-nullable null) property gets its default. */
export function applyDefaults(x: unknown, s: Schema | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    x.forEach((v) => applyDefaults(v, s.items));
    return;
  }
  if (!isPlainObject(x)) return;
  for (const [k, prop] of Object.entries(s.properties ?? {})) {
    if (prop.default === undefined) continue;
    if (!(k in x) || (x[k] === null && !prop.nullable)) x[k] = clone(prop.default);
  }
  const additional = isPlainObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
  for (const [k, v] of Object.entries(x)) applyDefaults(v, s.properties?.[k] ?? additional);
}
