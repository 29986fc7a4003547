import { badRequest } from '../errors';
import { resolveSchema } from '../kindSchemas';
import { clone, deepEqual, isPlainObject, type Obj } from '../types';

/**
 * Strategic merge patch (application/strategic-merge-patch+json) as the API server applies it to
 * a built-in object: like a JSON merge patch, except that lists whose schema says
 * `x-kubernetes-patch-strategy: merge` merge element by element (by `x-kubernetes-patch-merge-key`
 * for objects, as a union for scalars), and the directives kubectl and helm put in their three-way
 * patches are obeyed: `$patch` (replace, delete, merge), `$retainKeys`, `$setElementOrder/<list>`
 * and `$deleteFromPrimitiveList/<list>`. The schema is the real server's OpenAPI (kindSchemas.ts);
 * a field it does not describe merges as in a JSON merge patch.
 */
export function strategicMergePatch(original: Obj, patch: Obj, schema: Obj | undefined): Obj {
  return mergeMap(original, patch, schema) ?? {};
}

const ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';

function propertySchema(schema: Obj | undefined, key: string): Obj | undefined {
  const s = resolveSchema(schema);
  if (!s) return undefined;
  if (isPlainObject(s.properties)) return s.properties[key] as Obj | undefined;
  if (isPlainObject(s.additionalProperties)) return s.additionalProperties;
  return undefined;
}

function mergeMap(original: Obj | undefined, patch: Obj, schema: Obj | undefined): Obj | undefined {
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  const { $patch: _p, $retainKeys: retain, ...fields } = patch;
  if (directive === 'replace') return withoutDirectives(fields);
  if (directive !== undefined && directive !== 'merge') throw badRequest(`unknown patch type: ${directive}`);
  const out: Obj = isPlainObject(original) ? clone(original) : {};
  for (const [key, value] of Object.entries(fields)) {
    if (key.startsWith(ORDER) || key.startsWith(DELETE_FROM)) continue;
    if (value === null) {
      delete out[key];
      continue;
    }
    const fieldSchema = propertySchema(schema, key);
    const merged = mergeValue(out[key], value, fieldSchema);
    if (merged === undefined) delete out[key];
    else out[key] = merged;
  }
  for (const [key, value] of Object.entries(fields)) {
    if (key.startsWith(DELETE_FROM)) {
      const field = key.slice(DELETE_FROM.length);
      if (Array.isArray(out[field])) {
        out[field] = (out[field] as unknown[]).filter(
          (v) => !(value as unknown[]).some((d) => deepEqual(d, v)),
        );
      }
    } else if (key.startsWith(ORDER)) {
      const field = key.slice(ORDER.length);
      if (Array.isArray(out[field]))
        out[field] = ordered(out[field], value as unknown[], propertySchema(schema, field));
    }
  }
  if (Array.isArray(retain)) {
    for (const key of Object.keys(out)) if (!retain.includes(key)) delete out[key];
  }
  return out;
}

function mergeValue(original: unknown, patch: unknown, schema: Obj | undefined): unknown {
  if (Array.isArray(patch)) return mergeList(original, patch, schema);
  if (isPlainObject(patch)) {
    const s = resolveSchema(schema);
    // A map field the schema does not call an object (e.g. preserve-unknown-fields) still merges.
    if (s && s.type && s.type !== 'object' && !isPlainObject(original)) return withoutDirectives(patch);
    return mergeMap(isPlainObject(original) ? original : undefined, patch, schema);
  }
  return clone(patch);
}

function listStrategy(schema: Obj | undefined): { merge: boolean; key?: string } {
  const s = schema && (schema['x-kubernetes-patch-strategy'] ? schema : resolveSchema(schema));
  const strategy = String(s?.['x-kubernetes-patch-strategy'] ?? '');
  return {
    merge: strategy.split(',').includes('merge'),
    key: s?.['x-kubernetes-patch-merge-key'] as string | undefined,
  };
}

function mergeList(original: unknown, patch: unknown[], schema: Obj | undefined): unknown[] {
  const { merge, key } = listStrategy(schema);
  const replaceAll = patch.some((p) => isPlainObject(p) && p.$patch === 'replace');
  if (!merge || replaceAll || !Array.isArray(original)) {
    return withoutDirectives(patch.filter((p) => !(isPlainObject(p) && p.$patch === 'replace'))) as unknown[];
  }
  const itemSchema = resolveSchema(schema)?.items as Obj | undefined;
  const out = clone(original);
  if (!key) {
    // A merging list of scalars is a union (metadata.finalizers).
    for (const p of patch) if (!out.some((o) => deepEqual(o, p))) out.push(clone(p));
    return out;
  }
  for (const p of patch) {
    if (!isPlainObject(p)) throw badRequest(`the list of ${key} merge key has a non-map element`);
    const at = out.findIndex((o) => isPlainObject(o) && deepEqual(o[key], p[key]));
    if (p.$patch === 'delete') {
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    if (at >= 0) out[at] = mergeMap(out[at] as Obj, p, itemSchema);
    else out.push(withoutDirectives(p));
  }
  return inServerOrder(out, original, patch as Obj[], key);
}

/**
 * The order the real server gives a merged list (strategicpatch's normalizeElementOrder): the
 * patch's items in patch order, and the items only the server had in their original order, one of
 * those placed before a patch item only where it came before it in the original.
 */
function inServerOrder(merged: unknown[], original: unknown[], patch: Obj[], key: string): unknown[] {
  const keyOf = (item: unknown) => JSON.stringify(isPlainObject(item) ? item[key] : item);
  const patchOrder = patch.filter((p) => p.$patch !== 'delete').map(keyOf);
  const originalOrder = original.map(keyOf);
  const fromPatch = merged
    .filter((m) => patchOrder.includes(keyOf(m)))
    .sort((a, b) => patchOrder.indexOf(keyOf(a)) - patchOrder.indexOf(keyOf(b)));
  const serverOnly = merged.filter((m) => !patchOrder.includes(keyOf(m)));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < fromPatch.length) {
    if (j >= fromPatch.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(fromPatch[j++]);
    else {
      const before = originalOrder.indexOf(keyOf(serverOnly[i]));
      const after = originalOrder.indexOf(keyOf(fromPatch[j]));
      if (before >= 0 && after >= 0 && before < after) out.push(serverOnly[i++]);
      else out.push(fromPatch[j++]);
    }
  }
  return out;
}

/**
 * `$setElementOrder`: the listed elements in the listed order; elements only the server has keep
 * their place relative to the listed ones that preceded them.
 */
function ordered(list: unknown[], order: unknown[], schema: Obj | undefined): unknown[] {
  const { key } = listStrategy(schema);
  const idOf = (v: unknown) => (key && isPlainObject(v) ? v[key] : v);
  const wanted = order.map(idOf);
  const listed = wanted.map((id) => list.find((v) => deepEqual(idOf(v), id))).filter((v) => v !== undefined);
  const out: unknown[] = [];
  let next = 0;
  for (const v of list) {
    if (wanted.some((id) => deepEqual(idOf(v), id))) out.push(listed[next++]);
    else out.push(v);
  }
  return out;
}

function withoutDirectives<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutDirectives) as T;
  if (!isPlainObject(value)) return value;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith(ORDER) || k.startsWith(DELETE_FROM)) continue;
    out[k] = withoutDirectives(v);
  }
  return out as T;
}
