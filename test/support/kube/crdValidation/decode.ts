/**
 * The apiextensions.k8s.io/v1 CustomResourceDefinition as the server decodes it into its Go
 * structs: a JSON value of the wrong type fails the whole request (400 `json: cannot unmarshal …`,
 * 17 #165), an unknown field is reported with its path (`strict decoding error`, 17 #151, #164),
 * and what comes back out is the struct encoded again: zero values of `omitempty` fields and JSON
 * nulls are gone (`default: null`, `enum: []`, 17 #44, #104).
 */
import { ApiError, badRequest } from '../errors';
import { OBJECT_META_FIELDS } from '../schema';
import { isPlainObject, type Obj } from '../types';
import { crdFields, type Field, type GoType } from './v1Types';

/** Go's name of a type in `of type …` (the v1 package's types are `v1.X`). */
function goTypeName(t: GoType): string {
  switch (t.kind) {
    case 'scalar':
      return t.type;
    case 'json':
      return 'v1.JSON';
    case 'struct':
    case 'custom':
      return `v1.${t.name}`;
    case 'slice':
      return `[]${goTypeName(t.elem)}`;
    case 'map':
      return `map[string]${goTypeName(t.elem)}`;
  }
}

function jsonKind(v: unknown): string {
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  if (isPlainObject(v)) return 'object';
  return typeof v;
}

/** Whether `omitempty` leaves the value out (Go: false, 0, "", nil, empty slice or map; never a struct). */
function isEmpty(v: unknown, t: GoType): boolean {
  if (v === undefined || v === null || v === '' || v === false || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  return t.kind === 'map' && isPlainObject(v) && Object.keys(v).length === 0;
}

interface At {
  /** The innermost Go struct and the JSON names of the fields from the root (UnmarshalTypeError). */
  struct: string;
  fields: string[];
  /** The strict decoder's path: indexes and map keys included. */
  path: string;
}

class Decoding {
  readonly unknown: string[] = [];
  /** Inside a custom UnmarshalJSON, which decodes without strictness: unknown fields vanish. */
  private quiet = 0;

  constructor(private readonly prefix: string) {}

  private fail(detail: string): never {
    throw badRequest(`${this.prefix}: ${detail}`);
  }

  /** An error inside a custom unmarshaler is reported at the field that holds it (Go's addErrorContext). */
  private typeError(v: unknown, t: GoType, at: At): never {
    const value = typeof v === 'number' && !Number.isInteger(v) ? `number ${v}` : jsonKind(v);
    this.fail(
      `json: cannot unmarshal ${value} into Go struct field ${at.struct}.${at.fields.join('.')} of type ${goTypeName(t)}`,
    );
  }

  value(v: unknown, t: GoType, at: At): unknown {
    if (v === null) return null;
    switch (t.kind) {
      case 'json':
        return v;
      case 'scalar': {
        const ok =
          t.type === 'string'
            ? typeof v === 'string'
            : t.type === 'bool'
              ? typeof v === 'boolean'
              : typeof v === 'number' && (t.type === 'float64' || Number.isInteger(v));
        if (!ok) this.typeError(v, t, at);
        return v;
      }
      case 'slice':
        if (!Array.isArray(v)) this.typeError(v, t, at);
        return v.map((x, i) => this.value(x, t.elem, { ...at, path: `${at.path}[${i}]` }));
      case 'map': {
        if (!isPlainObject(v)) this.typeError(v, t, at);
        const out: Obj = {};
        for (const [k, x] of Object.entries(v))
          out[k] = this.value(x, t.elem, { ...at, path: `${at.path}.${k}` });
        return out;
      }
      case 'custom':
        return this.custom(v, t, at);
      case 'struct':
        if (!isPlainObject(v)) this.typeError(v, t, at);
        return this.struct(v, t.name, t.fields(), at);
    }
  }

  private custom(v: unknown, t: GoType & { kind: 'custom' }, at: At): unknown {
    this.quiet++;
    try {
      return t.decode(v, (x, inner) => this.value(x, inner, at));
    } catch (e) {
      if (e instanceof ApiError) throw e;
      return this.fail((e as Error).message);
    } finally {
      this.quiet--;
    }
  }

  struct(v: Obj, name: string, fields: Record<string, Field>, at: Omit<At, 'struct'>): Obj {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      const path = at.path ? `${at.path}.${k}` : k;
      const f = fields[k];
      if (!f) {
        if (!this.quiet) this.unknown.push(path);
        continue;
      }
      const decoded = this.value(x, f.type, { struct: name, fields: [...at.fields, k], path });
      if (decoded === null) {
        // A null leaves a pointer, slice or map nil: omitted, or encoded as null without omitempty.
        if (!f.omitempty && (f.type.kind === 'slice' || f.type.kind === 'map')) out[k] = null;
        continue;
      }
      if (f.omitempty && !f.pointer && isEmpty(decoded, f.type)) continue;
      out[k] = decoded;
    }
    return out;
  }
}

/**
 * Decodes a CRD body in place as the server's v1 decoder does, returning the paths of unknown
 * fields (the caller reports them per fieldValidation). A value of the wrong type throws the 400.
 */
export function decodeCustomResourceDefinition(obj: Obj): string[] {
  const d = new Decoding(
    'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition',
  );
  const { metadata, ...rest } = obj;
  const decoded = d.struct(rest, 'CustomResourceDefinition', crdFields, { fields: [], path: '' });
  const unknownMeta = isPlainObject(metadata)
    ? Object.keys(metadata)
        .filter((k) => !OBJECT_META_FIELDS.has(k))
        .sort()
    : [];
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, decoded);
  if (isPlainObject(metadata)) {
    for (const k of unknownMeta) delete metadata[k];
    obj.metadata = metadata;
  }
  return [...unknownMeta.map((k) => `metadata.${k}`), ...d.unknown];
}
