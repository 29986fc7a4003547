import { isPlainObject, type Obj } from '../types';

/**
 * What structured-merge-diff needs to know about a place in an object (its schema.Atom): how a
 * value there merges, how its items are named in field paths, and which fields a struct declares.
 */
export type TypeNode = ScalarNode | ListNode | MapNode | DeducedNode;

interface ScalarNode {
  kind: 'scalar';
  /** `untyped` is int-or-string and the like: any scalar, and any value at all merges as a leaf. */
  scalar: 'string' | 'numeric' | 'boolean' | 'untyped';
}

export interface ListNode {
  kind: 'list';
  /** `atomic` lists are replaced whole; associative ones merge item by item (sets, keyed maps). */
  relationship: 'atomic' | 'associative';
  /** The item keys of an associative list of objects (x-kubernetes-list-map-keys, patch merge key). */
  keys: string[];
  element(): TypeNode;
}

export interface MapNode {
  kind: 'map';
  /** An atomic map (x-kubernetes-map-type: atomic) is owned and replaced as one value. */
  atomic: boolean;
  /** A declared field of a struct. */
  field(name: string): TypeNode | undefined;
  /** The schema default of a declared field (list-map keys may be defaulted, ports' protocol). */
  fieldDefault(name: string): unknown;
  /** The type of keys a struct does not declare (a map's values), or none: undeclared keys are errors. */
  element?(): TypeNode;
}

/** A value without a schema: maps merge key by key, lists are atomic (x-kubernetes-preserve-unknown-fields). */
export interface DeducedNode {
  kind: 'deduced';
}

export const DEDUCED: DeducedNode = { kind: 'deduced' };
const UNTYPED: ScalarNode = { kind: 'scalar', scalar: 'untyped' };

/** Finds the schema a `$ref` (or the `allOf: [{$ref}]` form) names; returns others as they are. */
export type SchemaResolver = (schema: Obj | undefined) => Obj | undefined;

/**
 * Builds type nodes from OpenAPI v3 schemas (a built-in kind's component schema, a CRD's
 * structural schema) the way kube-openapi's schemaconv does: lists are atomic unless
 * x-kubernetes-list-type or a merge patch strategy says otherwise; properties make a struct,
 * additionalProperties a map; int-or-string is an untyped scalar. Nodes are made once per schema
 * object, so recursive schemas (JSONSchemaProps) resolve lazily.
 */
export class TypeNodes {
  private readonly made = new WeakMap<Obj, TypeNode>();

  constructor(
    private readonly resolve: SchemaResolver,
    /** The schema of ObjectMeta, for embedded resources' `metadata`. */
    private readonly objectMeta: () => Obj | undefined,
  ) {}

  of(schema: Obj | undefined): TypeNode {
    const s = this.resolve(schema);
    if (!s) return DEDUCED;
    let node = this.made.get(s);
    if (!node) {
      node = this.build(s);
      this.made.set(s, node);
    }
    return node;
  }

  private build(s: Obj): TypeNode {
    if (s['x-kubernetes-int-or-string'] || s.format === 'int-or-string') return UNTYPED;
    const type = s.type as string | undefined;
    if (type === 'array' || (!type && s.items)) return this.list(s);
    if (type === 'object' || (!type && (s.properties || s.additionalProperties))) return this.map(s);
    if (type === 'string') return { kind: 'scalar', scalar: 'string' };
    if (type === 'integer' || type === 'number') return { kind: 'scalar', scalar: 'numeric' };
    if (type === 'boolean') return { kind: 'scalar', scalar: 'boolean' };
    return DEDUCED;
  }

  private list(s: Obj): ListNode {
    const listType = s['x-kubernetes-list-type'] as string | undefined;
    const strategy = String(s['x-kubernetes-patch-strategy'] ?? '');
    let relationship: ListNode['relationship'] = 'atomic';
    let keys: string[] = [];
    if (listType === 'map') {
      relationship = 'associative';
      keys = (s['x-kubernetes-list-map-keys'] as string[] | undefined) ?? [];
    } else if (listType === 'set') {
      relationship = 'associative';
    } else if (!listType && strategy.split(',').includes('merge')) {
      relationship = 'associative';
      const key = s['x-kubernetes-patch-merge-key'] as string | undefined;
      if (key) keys = [key];
    }
    const items = s.items as Obj | undefined;
    return { kind: 'list', relationship, keys, element: () => this.of(items) };
  }

  private map(s: Obj): MapNode {
    const properties: Obj = { ...((s.properties as Obj | undefined) ?? {}) };
    if (s['x-kubernetes-embedded-resource']) {
      properties.apiVersion ??= { type: 'string' };
      properties.kind ??= { type: 'string' };
      properties.metadata ??= this.objectMeta() ?? { type: 'object' };
    }
    const additional = s.additionalProperties;
    const hasFields = Object.keys(properties).length > 0;
    let element: (() => TypeNode) | undefined;
    if (isPlainObject(additional)) element = () => this.of(additional);
    else if (s['x-kubernetes-preserve-unknown-fields'] || additional === true || !hasFields) {
      element = () => DEDUCED;
    }
    return {
      kind: 'map',
      atomic: s['x-kubernetes-map-type'] === 'atomic',
      field: (name) => (Object.hasOwn(properties, name) ? this.of(properties[name] as Obj) : undefined),
      fieldDefault: (name) => (properties[name] as Obj | undefined)?.default,
      element,
    };
  }
}
