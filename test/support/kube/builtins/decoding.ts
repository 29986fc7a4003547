import { ApiError, notEmulated } from '../errors';
import { kindSchema, resolveSchema } from '../kindSchemas';
import type { ResourceType } from '../resources';
import { isPlainObject, rfc3339, type Obj } from '../types';
import { formatQuantity, quantityFromJson } from './quantity';

/**
 * What the server's JSON decoder (sigs.k8s.io/json into the versioned Go types) does to a body,
 * driven by the kind's OpenAPI schema (kindSchemas.ts): a value of the wrong JSON type fails with
 * encoding/json's text (`json: cannot unmarshal number into Go struct field LeaseSpec.spec.renewTime
 * of type string`, 19 #93, #172), quantities and base64 bytes fail with their own parsers' texts
 * (19 #32, #82) and come back canonical, and fields the type lacks are pruned (and reported, so
 * that fieldValidation can warn or refuse).
 */

const SCHEMA_REF = '#/components/schemas/';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
const TIMES = new Set([TIME, 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime']);

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * metav1.Time keeps whole seconds: its protobuf form (etcd) drops the nanoseconds and its JSON
 * form is RFC 3339 in UTC, so a pod status written with `.123Z` or `+01:00` reads back as
 * `…:05Z`. A value that does not parse is left as sent (its 400 is not emulated).
 */
function toSeconds(value: string): string {
  if (!RFC3339.test(value)) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : rfc3339(new Date(Math.floor(ms / 1000) * 1000));
}

interface Node {
  schema: Obj;
  /** The component name when the node came through a `$ref`. */
  name?: string;
}

function refOf(s: Obj | undefined): string | undefined {
  const ref = (s?.$ref ?? s?.allOf?.[0]?.$ref) as string | undefined;
  return ref?.slice(ref.indexOf(SCHEMA_REF) + SCHEMA_REF.length);
}

function nodeOf(schema: Obj | undefined): Node | undefined {
  if (!schema) return undefined;
  const name = refOf(schema);
  const resolved = resolveSchema(schema);
  return resolved ? { schema: resolved, name } : undefined;
}

/** `io.k8s.api.core.v1.Container` → `Container`, with its package: `v1.Container`. */
function goStructName(name: string | undefined, fallback: string): { bare: string; qualified: string } {
  const parts = (name ?? `v1.${fallback}`).split('.');
  const bare = parts[parts.length - 1]!;
  return { bare, qualified: `${parts[parts.length - 2]}.${bare}` };
}

function isIntOrString(n: Node): boolean {
  return (
    n.name === INT_OR_STRING ||
    n.schema.format === 'int-or-string' ||
    n.schema['x-kubernetes-int-or-string'] === true
  );
}

/** The Go type a schema node stands for, as encoding/json names it in errors. */
function goType(n: Node): string {
  const s = n.schema;
  if (n.name === QUANTITY) return 'resource.Quantity';
  if (isIntOrString(n)) return 'int32';
  if (n.name && TIMES.has(n.name)) return 'string';
  if (s.properties) return goStructName(n.name, 'Object').qualified;
  if (s.type === 'array') {
    const items = nodeOf(s.items as Obj);
    return `[]${items ? goType(items) : 'interface {}'}`;
  }
  if (s.type === 'object') {
    const values = nodeOf(s.additionalProperties as Obj);
    return values ? `map[string]${goType(values)}` : 'map[string]interface {}';
  }
  if (s.type === 'string' || s.enum) return s.format === 'byte' ? '[]uint8' : 'string';
  if (s.type === 'integer') return s.format === 'int64' ? 'int64' : 'int32';
  // The schemas read from kubernetes-models say `number` for every int32 of apps/v1 and friends.
  if (s.type === 'number') return s.format === 'double' ? 'float64' : 'int32';
  if (s.type === 'boolean') return 'bool';
  return 'interface {}';
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
}

class DecodeError extends Error {}

interface Walk {
  /** The innermost Go struct (bare name) and the JSON field names that led here (no indices). */
  struct: string;
  fields: string[];
  /** The first error encoding/json saves and reports once decoding is done. */
  saved?: string;
}

function typeError(w: Walk, value: string, type: string): string {
  const where = w.fields.length ? `Go struct field ${w.struct}.${w.fields.join('.')}` : 'Go value';
  return `json: cannot unmarshal ${value} into ${where} of type ${type}`;
}

/** Saves the first error (decoding goes on, as encoding/json's does) and keeps the value. */
function save<T>(w: Walk, message: string, value: T): T {
  w.saved ??= message;
  return value;
}

/** A value of the wrong JSON type for `type`. */
const mismatch = <T>(w: Walk, value: T, type: string): T =>
  save(w, typeError(w, jsonKind(value), type), value);

const INT_RANGE: Record<string, [number, number]> = {
  int32: [-2147483648, 2147483647],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** Go's base64.StdEncoding: the index of the first byte that cannot be decoded. */
function base64Error(text: string): string | undefined {
  const data = text.replace(/[\r\n]/g, '');
  const bad = /[^A-Za-z0-9+/=]/.exec(data);
  if (bad) return `illegal base64 data at input byte ${bad.index}`;
  const pad = data.indexOf('=');
  if (pad >= 0 && (!/^=+$/.test(data.slice(pad)) || data.length % 4 !== 0 || data.length - pad > 2)) {
    return `illegal base64 data at input byte ${pad}`;
  }
  if (data.length % 4 !== 0) return `illegal base64 data at input byte ${data.length - (data.length % 4)}`;
  return undefined;
}

/** Walks one value; returns its replacement when decoding normalizes it (quantities, bytes). */
function decodeValue(n: Node, value: unknown, w: Walk): unknown {
  if (value === null || value === undefined) return value;
  const s = n.schema;
  if (n.name === QUANTITY) {
    try {
      return formatQuantity(quantityFromJson(isPlainObject(value) || Array.isArray(value) ? '{' : value));
    } catch (e) {
      throw new DecodeError((e as Error).message);
    }
  }
  if (isIntOrString(n)) {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isInteger(value) && value >= -2147483648 && value <= 2147483647)
      return value;
    const kind = typeof value === 'number' ? `number ${value}` : jsonKind(value);
    throw new DecodeError(typeError(w, kind, 'int32'));
  }
  if (n.name && TIMES.has(n.name)) {
    if (typeof value !== 'string') throw new DecodeError(typeError(w, jsonKind(value), 'string'));
    return n.name === TIME ? toSeconds(value) : value;
  }
  const type = goType(n);
  if (s.properties) {
    if (!isPlainObject(value)) return mismatch(w, value, type);
    const struct = goStructName(n.name, 'Object').bare;
    for (const [k, v] of Object.entries(value)) {
      const child = nodeOf((s.properties as Obj)[k] as Obj);
      if (!child) continue;
      const inner: Walk = { struct, fields: [...w.fields, k], saved: w.saved };
      value[k] = decodeValue(child, v, inner);
      w.saved = inner.saved;
    }
    return value;
  }
  if (s.type === 'array') {
    if (!Array.isArray(value)) return mismatch(w, value, type);
    const items = nodeOf(s.items as Obj);
    if (items) value.forEach((v, i) => (value[i] = decodeValue(items, v, w)));
    return value;
  }
  if (s.type === 'object') {
    if (!isPlainObject(value)) return mismatch(w, value, type);
    const values = nodeOf(s.additionalProperties as Obj);
    if (values) for (const [k, v] of Object.entries(value)) value[k] = decodeValue(values, v, w);
    return value;
  }
  if (type === '[]uint8') {
    if (typeof value !== 'string') return mismatch(w, value, type);
    const bad = base64Error(value);
    if (bad) return save(w, bad, value);
    return Buffer.from(value, 'base64').toString('base64');
  }
  if (type === 'string' && typeof value !== 'string') return mismatch(w, value, type);
  if (type === 'bool' && typeof value !== 'boolean') return mismatch(w, value, type);
  if (type in INT_RANGE || type === 'float64') {
    if (typeof value !== 'number') return mismatch(w, value, type);
    else if (type !== 'float64') {
      const [lo, hi] = INT_RANGE[type]!;
      if (!Number.isInteger(value) || value < lo || value > hi)
        return save(w, typeError(w, `number ${value}`, type), value);
    }
  }
  return value;
}

/** Removes the fields the schema does not know; returns their paths (`spec.containers[0].cpu`). */
function pruneValue(n: Node | undefined, value: unknown, path: string, out: string[]): void {
  if (!n || value === null || typeof value !== 'object') return;
  const s = n.schema;
  if (Array.isArray(value)) {
    const items = s.type === 'array' ? nodeOf(s.items as Obj) : undefined;
    value.forEach((v, i) => pruneValue(items, v, `${path}[${i}]`, out));
    return;
  }
  if (s.properties) {
    for (const k of Object.keys(value)) {
      const child = (s.properties as Obj)[k] as Obj | undefined;
      const at = path ? `${path}.${k}` : k;
      if (!child) {
        out.push(at);
        delete (value as Obj)[k];
      } else {
        pruneValue(nodeOf(child), (value as Obj)[k], at, out);
      }
    }
  } else if (s.type === 'object' && isPlainObject(s.additionalProperties)) {
    const values = nodeOf(s.additionalProperties as Obj);
    for (const [k, v] of Object.entries(value)) pruneValue(values, v, path ? `${path}.${k}` : k, out);
  }
}

/**
 * decode and prune of a built-in kind. A body that does not decode is a 400 `Kind in version "v1"
 * cannot be handled as a Kind: …`; inside a patch the real server answers a 422 that quotes the
 * whole patched object, which the emulator does not reproduce (refused loudly).
 */
export function decoding(apiVersion: string, kind: string): Pick<ResourceType, 'decode' | 'prune'> {
  const root = (): Node => {
    const schema = kindSchema(apiVersion, kind);
    if (!schema) throw new Error(`no schema for ${apiVersion} ${kind}`);
    return { schema, name: `v1.${kind}` };
  };
  const version = apiVersion.split('/').pop();
  return {
    decode(obj, viaPatch) {
      const w: Walk = { struct: kind, fields: [] };
      try {
        const n = root();
        for (const [k, v] of Object.entries(obj)) {
          const child = nodeOf((n.schema.properties as Obj)[k] as Obj);
          if (!child) continue;
          const inner: Walk = { struct: kind, fields: [k], saved: w.saved };
          obj[k] = decodeValue(child, v, inner);
          w.saved = inner.saved;
        }
        if (w.saved) throw new DecodeError(w.saved);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        if (viaPatch) throw notEmulated(`a ${kind} patch whose result does not decode (${e.message})`);
        throw new ApiError(
          400,
          'BadRequest',
          `${kind} in version "${version}" cannot be handled as a ${kind}: ${e.message}`,
        );
      }
    },
    prune(obj) {
      const out: string[] = [];
      pruneValue(root(), obj, '', out);
      return out.sort();
    },
  };
}
