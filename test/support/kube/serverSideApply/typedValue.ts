import { deepEqual, isPlainObject, type Obj } from '../types';
import { FieldSet, pathString, type PathElement } from './fieldSet';
import { DEDUCED, type ListNode, type MapNode, type TypeNode } from './typeNodes';

/**
 * structured-merge-diff's walks over a JSON value and its type (typed.TypedValue): validation,
 * the set of fields a value sets, the comparison of two values, merging, and removal of items.
 * A value absent on one side is `undefined`; JSON null is a value.
 */

const DEDUCED_MAP: MapNode = {
  kind: 'map',
  atomic: false,
  field: () => undefined,
  fieldDefault: () => undefined,
  element: () => DEDUCED,
};
const DEDUCED_LIST: ListNode = { kind: 'list', relationship: 'atomic', keys: [], element: () => DEDUCED };
const LEAF: TypeNode = { kind: 'scalar', scalar: 'untyped' };

/** A deduced type takes the shape of its value; values of two shapes merge as one leaf. */
function effective(node: TypeNode, ...values: unknown[]): TypeNode {
  if (node.kind !== 'deduced') return node;
  const present = values.filter((v) => v !== undefined && v !== null);
  const shapes = new Set(present.map((v) => (Array.isArray(v) ? 'list' : isPlainObject(v) ? 'map' : 'leaf')));
  if (shapes.size !== 1) return LEAF;
  const [shape] = shapes;
  return shape === 'map' ? DEDUCED_MAP : shape === 'list' ? DEDUCED_LIST : LEAF;
}

function childType(node: MapNode, key: string): TypeNode | undefined {
  return node.field(key) ?? node.element?.();
}

/** JSON with keys in the order given (list-map keys are sorted by name in path elements). */
function keyJson(keys: string[], item: Obj, defaults: (k: string) => unknown): string {
  const parts = [...keys].sort().map((k) => {
    const v = item[k] !== undefined ? item[k] : defaults(k);
    return `${JSON.stringify(k)}:${JSON.stringify(v)}`;
  });
  return `{${parts.join(',')}}`;
}

/** The path element naming an item of an associative list, or the reason it has none. */
function itemPathElement(list: ListNode, item: unknown): PathElement | { error: string } {
  if (list.keys.length > 0) {
    if (item === null) return { error: 'associative list with keys may not have a null element' };
    if (!isPlainObject(item)) return { error: 'associative list with keys may not have non-map elements' };
    const element = list.element();
    const defaults = (k: string) => (element.kind === 'map' ? element.fieldDefault(k) : undefined);
    for (const k of list.keys) {
      if (item[k] === undefined && defaults(k) === undefined) {
        return {
          error: `associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`,
        };
      }
    }
    return `k:${keyJson(list.keys, item, defaults)}`;
  }
  if (isPlainObject(item)) return { error: "associative list without keys has an element that's a map type" };
  if (Array.isArray(item)) return { error: 'not supported: associative list with lists as elements' };
  if (item === null) return { error: "associative list without keys has an element that's an explicit null" };
  return `v:${JSON.stringify(item)}`;
}

function pathElementOf(list: ListNode, item: unknown): PathElement | undefined {
  const pe = itemPathElement(list, item);
  return typeof pe === 'string' ? pe : undefined;
}

// ---- validation ------------------------------------------------------------------------------

/** Go's %v of an unstructured value (`map[a:b]`, `[x y]`). */
function goPlain(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goPlain).join(' ')}]`;
  if (isPlainObject(v))
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goPlain(v[k])}`)
      .join(' ')}]`;
  return v === null ? '<nil>' : String(v);
}

/** Go's %#v of an unstructured value. */
function goSyntax(v: unknown): string {
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  if (isPlainObject(v))
    return `map[string]interface {}{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goSyntax(v[k])}`)
      .join(', ')}}`;
  return v === null ? '<nil>' : typeof v === 'string' ? JSON.stringify(v) : String(v);
}

function goType(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (isPlainObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/**
 * The typed-conversion errors of a value, as `.path: message` (what SSA answers with 500
 * `failed to create typed patch object`). Duplicated list items are errors unless allowed.
 */
export function validateTyped(value: unknown, node: TypeNode, allowDuplicates: boolean): string[] {
  const errs: string[] = [];
  const err = (path: PathElement[], msg: string) => errs.push(`${pathString(path)}: ${msg}`);
  const walk = (v: unknown, n: TypeNode, path: PathElement[]): void => {
    const t = effective(n, v);
    if (v === null || v === undefined) return;
    if (t.kind === 'scalar') {
      if (t.scalar === 'numeric' && typeof v !== 'number')
        err(path, `expected numeric (int or float), got ${goType(v)}`);
      if (t.scalar === 'string' && typeof v !== 'string')
        err(path, `expected string, got &value.valueUnstructured{Value:${goSyntax(v)}}`);
      if (t.scalar === 'boolean' && typeof v !== 'boolean')
        err(path, `expected boolean, got &{${goPlain(v)}}`);
      return;
    }
    if (t.kind === 'list') {
      if (!Array.isArray(v)) return void err(path, `expected list, got &{${goPlain(v)}}`);
      const seen = new Set<string>();
      for (let i = 0; i < v.length; i++) {
        let pe: PathElement = `i:${i}`;
        if (t.relationship === 'associative') {
          const named = itemPathElement(t, v[i]);
          if (typeof named !== 'string') return void err(path, `element ${i}: ${named.error}`);
          if (seen.has(named) && !allowDuplicates)
            err(path, `duplicate entries for key ${pathString([named])}`);
          seen.add(named);
          pe = named;
        }
        walk(v[i], t.element(), [...path, pe]);
      }
      return;
    }
    if (t.kind === 'map') {
      if (!isPlainObject(v)) return void err(path, `expected map, got &{${goPlain(v)}}`);
      for (const k of Object.keys(v).sort()) {
        const ct = childType(t, k);
        if (!ct) return void err([...path, `f:${k}`], 'field not declared in schema');
        walk(v[k], ct, [...path, `f:${k}`]);
      }
    }
  };
  walk(value, node, []);
  return errs;
}

// ---- field sets --------------------------------------------------------------------------------

/** The fields a value sets (ToFieldSet): leaves, list items, atomic values, empty and null maps. */
export function toFieldSet(value: unknown, node: TypeNode): FieldSet {
  const set = new FieldSet();
  const walk = (v: unknown, n: TypeNode, path: PathElement[]): void => {
    const t = effective(n, v);
    if (t.kind === 'scalar' || t.kind === 'deduced') return set.insert(path);
    if (t.kind === 'list') {
      if (t.relationship === 'atomic') return set.insert(path);
      if (!Array.isArray(v)) return;
      for (const item of v) {
        const pe = pathElementOf(t, item);
        if (pe === undefined) continue;
        walk(item, t.element(), [...path, pe]);
        set.insert([...path, pe]);
      }
      return;
    }
    if (t.atomic) return set.insert(path);
    if (!isPlainObject(v)) return;
    for (const [k, x] of Object.entries(v)) {
      const ct = childType(t, k);
      if (!ct) continue;
      const p = [...path, `f:${k}`];
      walk(x, ct, p);
      if (x === null || (isPlainObject(x) && Object.keys(x).length === 0) || !t.field(k)) set.insert(p);
    }
  };
  walk(value, node, []);
  return set;
}

/** Adds the declared struct fields that have owned children as members themselves (prune's view). */
export function ensureNamedFieldsAreMembers(set: FieldSet, node: TypeNode): FieldSet {
  const out = new FieldSet();
  for (const m of set.members) out.members.add(m);
  for (const [pe, child] of set.children) {
    let ct: TypeNode = DEDUCED;
    if (node.kind === 'map' && pe.startsWith('f:')) {
      const name = pe.slice(2);
      if (node.field(name)) out.members.add(pe);
      ct = childType(node, name) ?? DEDUCED;
    } else if (node.kind === 'list') {
      ct = node.element();
    }
    out.children.set(pe, ensureNamedFieldsAreMembers(child, ct));
  }
  return out;
}

// ---- merging and comparing ---------------------------------------------------------------------

interface Hooks {
  /** A leaf: a scalar, an atomic value, or a list or map empty on both sides. Returns the result. */
  leaf(l: unknown, r: unknown, path: PathElement[]): unknown;
  /** After the children of a non-leaf node (a map, a list, a list item) were walked. */
  after?(l: unknown, r: unknown, path: PathElement[]): void;
}

function isEmptyList(v: unknown): boolean {
  return !Array.isArray(v) || v.length === 0;
}

function isEmptyMap(v: unknown): boolean {
  return !isPlainObject(v) || Object.keys(v).length === 0;
}

function walkBoth(l: unknown, r: unknown, node: TypeNode, path: PathElement[], h: Hooks): unknown {
  const t = effective(node, l, r);
  let out: unknown;
  if (t.kind === 'list') {
    if (t.relationship === 'atomic' || (isEmptyList(l) && isEmptyList(r))) return h.leaf(l, r, path);
    out = walkList(Array.isArray(l) ? l : [], Array.isArray(r) ? r : [], t, path, h);
  } else if (t.kind === 'map') {
    if (t.atomic || (isEmptyMap(l) && isEmptyMap(r))) return h.leaf(l, r, path);
    out = walkMap(isPlainObject(l) ? l : {}, isPlainObject(r) ? r : {}, t, path, h);
  } else {
    return h.leaf(l, r, path);
  }
  h.after?.(l, r, path);
  return out;
}

function walkMap(l: Obj, r: Obj, t: MapNode, path: PathElement[], h: Hooks): unknown {
  const out: Obj = {};
  for (const k of new Set([...Object.keys(l), ...Object.keys(r)])) {
    const ct = childType(t, k) ?? DEDUCED;
    const v = walkBoth(l[k], r[k], ct, [...path, `f:${k}`], h);
    if (v !== undefined) out[k] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

function index(list: unknown[], t: ListNode): { pes: PathElement[]; items: Map<PathElement, unknown> } {
  const pes: PathElement[] = [];
  const items = new Map<PathElement, unknown>();
  for (const item of list) {
    const pe = pathElementOf(t, item);
    if (pe === undefined) continue;
    pes.push(pe);
    if (!items.has(pe)) items.set(pe, item);
  }
  return { pes, items };
}

/** Associative lists: items matched by key; the merged order is structured-merge-diff's. */
function walkList(l: unknown[], r: unknown[], t: ListNode, path: PathElement[], h: Hooks): unknown {
  const lhs = index(l, t);
  const rhs = index(r, t);
  const shared = rhs.pes.filter((pe) => lhs.items.has(pe));
  let nextShared = shared.shift();
  const mergedRhs = new Set<PathElement>();
  const out: unknown[] = [];
  const item = (pe: PathElement, li: unknown, ri: unknown) => {
    const v = walkBoth(li, ri, t.element(), [...path, pe], h);
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  while (li < lhs.pes.length || ri < rhs.pes.length) {
    if (li < lhs.pes.length && ri < rhs.pes.length) {
      const pe = lhs.pes[li]!;
      if (pe === rhs.pes[ri]) {
        mergedRhs.add(pe);
        item(pe, lhs.items.get(pe), rhs.items.get(pe));
        li++;
        ri++;
        nextShared = shared.shift();
        continue;
      }
      if (rhs.items.has(pe) && nextShared !== undefined && nextShared !== pe) {
        li++;
        continue;
      }
    }
    if (li < lhs.pes.length) {
      const pe = lhs.pes[li]!;
      if (!rhs.items.has(pe)) {
        item(pe, lhs.items.get(pe), undefined);
        li++;
        continue;
      }
      if (mergedRhs.has(pe)) {
        li++;
        continue;
      }
    }
    if (ri < rhs.pes.length) {
      const pe = rhs.pes[ri]!;
      mergedRhs.add(pe);
      item(pe, lhs.items.get(pe), rhs.items.get(pe));
      ri++;
      if (nextShared !== undefined && nextShared === pe) nextShared = shared.shift();
    }
  }
  return out.length ? out : undefined;
}

/** Merges `rhs` into `lhs`: rhs wins at leaves, maps and associative lists merge item by item. */
export function merge(lhs: unknown, rhs: unknown, node: TypeNode): unknown {
  return walkBoth(lhs, rhs, node, [], { leaf: (l, r) => (r !== undefined ? r : l) });
}

export interface Comparison {
  added: FieldSet;
  removed: FieldSet;
  modified: FieldSet;
}

/** What changed from `lhs` to `rhs`, as field sets (a node present on both sides is not modified). */
export function compare(lhs: unknown, rhs: unknown, node: TypeNode): Comparison {
  const c: Comparison = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
  walkBoth(lhs, rhs, node, [], {
    leaf(l, r, path) {
      if (l === undefined) c.added.insert(path);
      else if (r === undefined) c.removed.insert(path);
      else if (!deepEqual(l, r)) c.modified.insert(path);
      return undefined;
    },
    after(l, r, path) {
      if (l === undefined) c.added.insert(path);
      else if (r === undefined) c.removed.insert(path);
    },
  });
  return c;
}

/** Removes each list item and map field that is a member of `remove` (emptied containers become null). */
export function removeItems(value: unknown, remove: FieldSet, node: TypeNode): unknown {
  const t = effective(node, value);
  if (t.kind === 'list') {
    if (!Array.isArray(value) || value.length === 0 || t.relationship === 'atomic') return value;
    const items: unknown[] = [];
    for (const v of value) {
      const pe = pathElementOf(t, v);
      if (pe !== undefined && remove.members.has(pe)) continue;
      const sub = pe === undefined ? undefined : remove.children.get(pe);
      items.push(sub ? removeItems(v, sub, t.element()) : v);
    }
    return items.length ? items : null;
  }
  if (t.kind === 'map') {
    if (!isPlainObject(value) || Object.keys(value).length === 0 || t.atomic) return value;
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) {
      const pe = `f:${k}`;
      if (remove.members.has(pe)) continue;
      const sub = remove.children.get(pe);
      out[k] = sub ? removeItems(v, sub, childType(t, k) ?? DEDUCED) : v;
    }
    return Object.keys(out).length ? out : null;
  }
  return value;
}
