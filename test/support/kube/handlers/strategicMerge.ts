import { notEmulated } from '../errors';
import { openApiSchemas, resolveSchema } from '../openapi';
import { clone, isPlainObject, type Obj } from '../types';

type Schemas = Record<string, Obj>;

/** Where a built-in kind's schema is: the OpenAPI document and the component name. */
export interface PatchSchema {
  file: string;
  schema: string;
}

/**
 * A strategic merge patch (apimachinery's strategicpatch) on a built-in object, with the patch
 * strategies and merge keys the kind's OpenAPI schema declares (`x-kubernetes-patch-strategy`,
 * `x-kubernetes-patch-merge-key`, the same struct tags the real server reads): maps merge as in a
 * merge patch (null deletes); a list with strategy `merge` merges its items by the merge key in
 * the order the real server gives them (a list of scalars: the original's, then the patch's new
 * ones); every other list is replaced. The `$patch`, `$retainKeys`, `$setElementOrder` … directives are not emulated.
 */
export function strategicMergePatch(where: PatchSchema, original: Obj, patch: unknown): Obj {
  const all = openApiSchemas(where.file);
  if (!all) throw notEmulated('strategic merge patch without the OpenAPI documents');
  return mergeValue(all, all[where.schema], original, patch) as Obj;
}

function mergeValue(all: Schemas, schema: Obj | undefined, original: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const resolved = resolveSchema(all, schema);
  const out: Obj = isPlainObject(original) ? clone(original) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) throw notEmulated(`strategic merge patch directive ${key}`);
    if (value === null) {
      delete out[key];
      continue;
    }
    const field =
      (resolved?.properties as Obj | undefined)?.[key] ?? objectOrUndefined(resolved?.additionalProperties);
    const strategy = extension(all, field, 'x-kubernetes-patch-strategy') ?? '';
    if (Array.isArray(value) && Array.isArray(out[key]) && strategy.split(',').includes('merge')) {
      const itemSchema = resolveSchema(all, field)?.items as Obj | undefined;
      const mergeKey = extension(all, field, 'x-kubernetes-patch-merge-key');
      out[key] = mergeList(all, itemSchema, out[key] as unknown[], value, mergeKey);
    } else {
      out[key] = mergeValue(all, field, out[key], value);
    }
  }
  return out;
}

function objectOrUndefined(v: unknown): Obj | undefined {
  return isPlainObject(v) ? v : undefined;
}

/** An extension on the field's own schema or on the schema it refers to. */
function extension(all: Schemas, field: Obj | undefined, name: string): string | undefined {
  return (field?.[name] ?? resolveSchema(all, field)?.[name]) as string | undefined;
}

/**
 * Items of the patch merge into the original item with the same merge key (or are added); then
 * the order of strategicpatch's normalizeElementOrder: the patch's items in patch order and the
 * server-only items in their original order, interleaved where both sides were in the original.
 */
function mergeList(
  all: Schemas,
  itemSchema: Obj | undefined,
  original: unknown[],
  patch: unknown[],
  mergeKey: string | undefined,
): unknown[] {
  if (!mergeKey) {
    // Scalars: the original's, then the patch's new ones (strategicpatch's deduplicateScalars).
    const seen = new Set<string>();
    return [...original, ...patch].filter(
      (item) => !seen.has(JSON.stringify(item)) && seen.add(JSON.stringify(item)),
    );
  }
  const keyOf = (item: unknown) => JSON.stringify(mergeKey && isPlainObject(item) ? item[mergeKey] : item);
  if (!patch.every(isPlainObject)) {
    throw notEmulated('a strategic merge patch list item without its merge key');
  }
  const merged = original.map(clone);
  for (const item of patch) {
    const at = merged.findIndex((o) => keyOf(o) === keyOf(item));
    if (at < 0) merged.push(clone(item));
    else merged[at] = mergeValue(all, itemSchema, merged[at], item);
  }
  const patchOrder = patch.map(keyOf);
  const serverOrder = original.map(keyOf);
  const fromPatch = merged
    .filter((m) => patchOrder.includes(keyOf(m)))
    .sort((a, b) => patchOrder.indexOf(keyOf(a)) - patchOrder.indexOf(keyOf(b)));
  const serverOnly = merged.filter((m) => !patchOrder.includes(keyOf(m)));
  return mergeSorted(serverOnly, fromPatch, (item) => serverOrder.indexOf(keyOf(item)));
}

/** strategicpatch's mergeSortedSlice: a server-only item goes first only if it was before in the original. */
function mergeSorted(left: unknown[], right: unknown[], originalIndex: (item: unknown) => number): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++]);
    else if (i >= left.length) out.push(right[j++]);
    else {
      const li = originalIndex(left[i]);
      const ri = originalIndex(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}
