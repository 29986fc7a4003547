import { isPlainObject, type Obj } from '../types';

/**
 * A path element as managedFields' fieldsV1 spells it: `f:name` (a field or map key),
 * `k:{"name":"app"}` (an item of a keyed list), `v:"a"` (an item of a set), `i:0` (by index).
 */
export type PathElement = string;

/** The rank of a path element kind in structured-merge-diff's order: fields, keys, values, indexes. */
function rank(pe: PathElement): number {
  return 'fkvi'.indexOf(pe[0]!);
}

/** structured-merge-diff's PathElement order (what fieldsV1 and conflict lists are sorted by). */
function comparePathElements(a: PathElement, b: PathElement): number {
  const byKind = rank(a) - rank(b);
  if (byKind !== 0) return byKind;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Go's value.ToString of a JSON scalar as paths print it: strings quoted, numbers bare. */
function printValue(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : v === null ? 'null' : String(v);
}

/** A path as conflict messages print it: `.spec.containers[name="app"].image`, `.spec.tags[="a"]`. */
export function pathString(path: PathElement[]): string {
  return path
    .map((pe) => {
      const rest = pe.slice(2);
      switch (pe[0]) {
        case 'f':
          return `.${rest}`;
        case 'k':
          return `[${Object.entries(JSON.parse(rest) as Obj)
            .map(([k, v]) => `${k}=${printValue(v)}`)
            .join(',')}]`;
        case 'v':
          return `[=${printValue(JSON.parse(rest))}]`;
        default:
          return `[${rest}]`;
      }
    })
    .join('');
}

/**
 * A set of field paths (structured-merge-diff's fieldpath.Set): `members` are paths of one
 * element that belong to the set, `children` hold the longer paths by their first element. A node
 * can be a member and have children at once (fieldsV1 writes that as `".": {}`).
 */
export class FieldSet {
  readonly members = new Set<PathElement>();
  readonly children = new Map<PathElement, FieldSet>();

  static of(paths: PathElement[][]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: PathElement[]): void {
    if (path.length === 0) return;
    if (path.length === 1) {
      this.members.add(path[0]!);
      return;
    }
    let child = this.children.get(path[0]!);
    if (!child) {
      child = new FieldSet();
      this.children.set(path[0]!, child);
    }
    child.insert(path.slice(1));
  }

  has(path: PathElement[]): boolean {
    if (path.length === 0) return false;
    if (path.length === 1) return this.members.has(path[0]!);
    return this.children.get(path[0]!)?.has(path.slice(1)) ?? false;
  }

  /** The paths below `pe` (without it), empty when there are none. */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(pe) ?? new FieldSet();
  }

  empty(): boolean {
    return this.members.size === 0 && [...this.children.values()].every((c) => c.empty());
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of [...this.members, ...other.members]) out.members.add(m);
    for (const pe of new Set([...this.children.keys(), ...other.children.keys()])) {
      const a = this.children.get(pe);
      const b = other.children.get(pe);
      const u = a && b ? a.union(b) : (a ?? b)!.union(new FieldSet());
      if (!u.empty()) out.children.set(pe, u);
    }
    return out;
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, child] of this.children) {
      const o = other.children.get(pe);
      const d = o ? child.difference(o) : child.union(new FieldSet());
      if (!d.empty()) out.children.set(pe, d);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [pe, child] of this.children) {
      const o = other.children.get(pe);
      if (!o) continue;
      const i = child.intersection(o);
      if (!i.empty()) out.children.set(pe, i);
    }
    return out;
  }

  /** Removes every path of `other` together with everything below it (reset fields' filter). */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, child] of this.children) {
      if (other.members.has(pe)) continue;
      const o = other.children.get(pe);
      const d = o ? child.recursiveDifference(o) : child.union(new FieldSet());
      if (!d.empty()) out.children.set(pe, d);
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).empty() && other.difference(this).empty();
  }

  /** Every member path, in structured-merge-diff's order. */
  paths(): PathElement[][] {
    const out: PathElement[][] = [];
    const keys = [...new Set([...this.members, ...this.children.keys()])].sort(comparePathElements);
    for (const pe of keys) {
      if (this.members.has(pe)) out.push([pe]);
      const child = this.children.get(pe);
      if (child) for (const p of child.paths()) out.push([pe, ...p]);
    }
    return out;
  }

  /** The fieldsV1 form: children in order, `"."` first where a node is itself a member. */
  toFieldsV1(): Obj {
    const out: Obj = {};
    const keys = [...new Set([...this.members, ...this.children.keys()])].sort(comparePathElements);
    for (const pe of keys) {
      const child = this.children.get(pe);
      if (child && !child.empty()) {
        out[pe] = this.members.has(pe) ? { '.': {}, ...child.toFieldsV1() } : child.toFieldsV1();
      } else {
        out[pe] = {};
      }
    }
    return out;
  }

  static fromFieldsV1(fields: unknown): FieldSet {
    const out = new FieldSet();
    if (!isPlainObject(fields)) throw new Error('fieldsV1 must be an object');
    for (const [pe, sub] of Object.entries(fields)) {
      if (pe === '.') continue;
      if (!/^[fkvi]:/.test(pe)) throw new Error(`unknown path element ${JSON.stringify(pe)}`);
      if (!isPlainObject(sub)) throw new Error('fieldsV1 must be an object');
      const keys = Object.keys(sub);
      if (keys.length === 0 || keys.includes('.')) out.members.add(pe);
      if (keys.some((k) => k !== '.')) {
        const child = FieldSet.fromFieldsV1(sub);
        if (!child.empty()) out.children.set(pe, child);
      }
    }
    return out;
  }
}
