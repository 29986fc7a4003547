import { customResourceDefinitions } from '../crd';
import { kindSchema, resolveSchema } from '../kindSchemas';
import { apiVersionOf, resourceKey, type ResourceType } from '../resources';
import type { Store } from '../store';
import { isPlainObject, type Obj } from '../types';
import { FieldSet } from './fieldSet';
import { DEDUCED, TypeNodes, type TypeNode } from './typeNodes';

const OBJECT_META = { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' };

/** What the field manager needs about one kind: its type, its zero object, its reset fields. */
export interface ManagedKind {
  type: TypeNode;
  apiVersion: string;
  kind: string;
  /** The object `New()` makes for the kind: what a create is compared against. */
  zero(): Obj;
  /** Fields a write through the main resource or a subresource may not change (GetResetFields). */
  ignored(subresource: string | undefined): FieldSet;
}

/** The served version's openAPIV3Schema of a custom resource, read from its stored CRD. */
function crdSchema(store: Store, type: ResourceType): Obj | undefined {
  const crd = store.get(resourceKey(customResourceDefinitions), undefined, `${type.resource}.${type.group}`);
  const version = (crd?.spec?.versions as Obj[] | undefined)?.find((v) => v.name === type.version);
  const schema = version?.schema?.openAPIV3Schema as Obj | undefined;
  return isPlainObject(schema) ? schema : undefined;
}

/**
 * Struct fields Go encodes even when empty: OpenAPI does not say which fields are pointers, but by
 * the API conventions optional structs are, except these (and ObjectMeta everywhere).
 */
const VALUE_STRUCTS = new Set([
  'metadata',
  'spec',
  'status',
  'template',
  'jobTemplate',
  'strategy',
  'updateStrategy',
]);

/**
 * A Go zero value as the API server's converter shows it: required (non-omitempty) fields are
 * there, empty; value structs are always there; optional scalars, lists, maps and pointers are not.
 */
function zeroStruct(schema: Obj | undefined, depth = 0): Obj {
  const out: Obj = {};
  const s = resolveSchema(schema);
  if (!s || depth > 8) return out;
  const required = new Set((s.required ?? []) as string[]);
  for (const [name, raw] of Object.entries((s.properties ?? {}) as Obj)) {
    const p = resolveSchema(raw as Obj);
    if (!p) continue;
    const struct = p.type === 'object' && Boolean(p.properties);
    if (name === 'metadata' && struct && (p.properties as Obj).creationTimestamp) {
      out[name] = { creationTimestamp: null };
    } else if (struct && (required.has(name) || VALUE_STRUCTS.has(name))) {
      out[name] = zeroStruct(p, depth + 1);
    } else if (!required.has(name)) {
      continue;
    } else if (p['x-kubernetes-int-or-string']) out[name] = 0;
    else if (p.type === 'string') out[name] = '';
    else if (p.type === 'integer' || p.type === 'number') out[name] = 0;
    else if (p.type === 'boolean') out[name] = false;
    else out[name] = null;
  }
  return out;
}

function resetFields(type: ResourceType): (subresource: string | undefined) => FieldSet {
  const status = FieldSet.of([['f:status']]);
  const spec = FieldSet.of([['f:spec']]);
  const none = new FieldSet();
  return (subresource) => {
    if (subresource === 'status') return spec;
    return type.subresources.includes('status') ? status : none;
  };
}

export function managedKind(store: Store, type: ResourceType): ManagedKind {
  const apiVersion = apiVersionOf(type);
  const nodes = new TypeNodes(resolveSchema, () => resolveSchema(OBJECT_META));
  if (type.custom) {
    const schema = crdSchema(store, type);
    const root: Obj = {
      ...(schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
      type: 'object',
    };
    root.properties = {
      ...((root.properties as Obj | undefined) ?? {}),
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: OBJECT_META,
    };
    return {
      type: nodes.of(root),
      apiVersion,
      kind: type.kind,
      zero: () => ({ apiVersion, kind: type.kind }),
      ignored: resetFields(type),
    };
  }
  const schema = kindSchema(apiVersion, type.kind);
  return {
    type: schema ? nodes.of(schema) : DEDUCED,
    apiVersion,
    kind: type.kind,
    zero() {
      const zero = zeroStruct(schema);
      delete zero.apiVersion;
      delete zero.kind;
      return zero;
    },
    ignored: resetFields(type),
  };
}
