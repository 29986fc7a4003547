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

type Scalar = 'string' | 'bool' | 'int64' | 'int32' | 'float64';

/** A Go type of the v1 API, reduced to what decoding needs. */
type GoType =
  | { kind: 'scalar'; type: Scalar }
  /** apiextensions JSON (default, example, enum items): any value, kept as sent. */
  | { kind: 'json' }
  | { kind: 'struct'; name: string; fields: () => Record<string, Field> }
  | { kind: 'slice'; elem: GoType }
  | { kind: 'map'; elem: GoType }
  /** A type with its own UnmarshalJSON (JSONSchemaPropsOrBool …): no strict checks inside. */
  | {
      kind: 'custom';
      name: string;
      decode: (v: unknown, inner: (v: unknown, t: GoType) => unknown) => unknown;
    };

interface Field {
  type: GoType;
  /** `omitempty`: a zero value is not encoded. */
  omitempty?: boolean;
  /** A pointer field: present even when zero, absent when null. */
  pointer?: boolean;
}

const str: Field = { type: { kind: 'scalar', type: 'string' } };
const optStr: Field = { ...str, omitempty: true };
const strPtr: Field = { ...str, omitempty: true, pointer: true };
const bool: Field = { type: { kind: 'scalar', type: 'bool' } };
const optBool: Field = { ...bool, omitempty: true };
const boolPtr: Field = { ...bool, omitempty: true, pointer: true };
const int64Ptr: Field = { type: { kind: 'scalar', type: 'int64' }, omitempty: true, pointer: true };
const float64Ptr: Field = { type: { kind: 'scalar', type: 'float64' }, omitempty: true, pointer: true };
const strings: Field = { type: { kind: 'slice', elem: str.type }, omitempty: true };
const json: Field = { type: { kind: 'json' }, omitempty: true, pointer: true };

function struct(name: string, fields: () => Record<string, Field>, opts: Partial<Field> = {}): Field {
  return { type: { kind: 'struct', name, fields }, ...opts };
}

const schemaType: GoType = { kind: 'struct', name: 'JSONSchemaProps', fields: () => jsonSchemaPropsFields };
const schemaPtr: Field = { type: schemaType, omitempty: true, pointer: true };
const schemaSlice: Field = { type: { kind: 'slice', elem: schemaType }, omitempty: true };
const schemaMap: Field = { type: { kind: 'map', elem: schemaType }, omitempty: true };

/** JSONSchemaPropsOrBool: `true`, `false` or a schema. */
const schemaOrBool: Field = {
  type: {
    kind: 'custom',
    name: 'JSONSchemaPropsOrBool',
    decode: (v, inner) => {
      if (typeof v === 'boolean') return v;
      if (isPlainObject(v)) return inner(v, schemaType);
      throw new Error('boolean or JSON schema expected');
    },
  },
  omitempty: true,
  pointer: true,
};

/** JSONSchemaPropsOrArray: a schema or a list of schemas. */
const schemaOrArray: Field = {
  type: {
    kind: 'custom',
    name: 'JSONSchemaPropsOrArray',
    decode: (v, inner) => {
      if (isPlainObject(v)) return inner(v, schemaType);
      if (Array.isArray(v)) return v.map((x) => inner(x, schemaType));
      throw new Error('JSONSchemaPropsOrArray: expected {} or []');
    },
  },
  omitempty: true,
  pointer: true,
};

/** JSONSchemaPropsOrStringArray (dependencies): a schema or a list of property names. */
const schemaOrStrings: GoType = {
  kind: 'custom',
  name: 'JSONSchemaPropsOrStringArray',
  decode: (v, inner) => {
    if (isPlainObject(v)) return inner(v, schemaType);
    if (Array.isArray(v)) return v.map((x) => inner(x, str.type));
    throw new Error('JSONSchemaPropsOrStringArray: expected {} or []');
  },
};

const jsonSchemaPropsFields: Record<string, Field> = {
  id: optStr,
  $schema: optStr,
  $ref: strPtr,
  description: optStr,
  type: optStr,
  format: optStr,
  title: optStr,
  default: json,
  maximum: float64Ptr,
  exclusiveMaximum: optBool,
  minimum: float64Ptr,
  exclusiveMinimum: optBool,
  maxLength: int64Ptr,
  minLength: int64Ptr,
  pattern: optStr,
  maxItems: int64Ptr,
  minItems: int64Ptr,
  uniqueItems: optBool,
  multipleOf: float64Ptr,
  enum: { type: { kind: 'slice', elem: { kind: 'json' } }, omitempty: true },
  maxProperties: int64Ptr,
  minProperties: int64Ptr,
  required: strings,
  items: schemaOrArray,
  allOf: schemaSlice,
  oneOf: schemaSlice,
  anyOf: schemaSlice,
  not: schemaPtr,
  properties: schemaMap,
  additionalProperties: schemaOrBool,
  patternProperties: schemaMap,
  dependencies: { type: { kind: 'map', elem: schemaOrStrings }, omitempty: true },
  additionalItems: schemaOrBool,
  definitions: schemaMap,
  externalDocs: struct('ExternalDocumentation', () => ({ description: optStr, url: optStr }), {
    omitempty: true,
    pointer: true,
  }),
  example: json,
  nullable: optBool,
  'x-kubernetes-preserve-unknown-fields': boolPtr,
  'x-kubernetes-embedded-resource': optBool,
  'x-kubernetes-int-or-string': optBool,
  'x-kubernetes-list-map-keys': strings,
  'x-kubernetes-list-type': strPtr,
  'x-kubernetes-map-type': strPtr,
  'x-kubernetes-validations': {
    type: {
      kind: 'slice',
      elem: struct('ValidationRule', () => ({
        rule: str,
        message: optStr,
        messageExpression: optStr,
        reason: strPtr,
        fieldPath: optStr,
        optionalOldSelf: boolPtr,
      })).type,
    },
    omitempty: true,
  },
};

const namesFields = (): Record<string, Field> => ({
  plural: str,
  singular: optStr,
  shortNames: strings,
  kind: str,
  listKind: optStr,
  categories: strings,
});

const versionFields = (): Record<string, Field> => ({
  name: str,
  served: bool,
  storage: bool,
  deprecated: optBool,
  deprecationWarning: strPtr,
  schema: struct('CustomResourceValidation', () => ({ openAPIV3Schema: schemaPtr }), {
    omitempty: true,
    pointer: true,
  }),
  subresources: struct(
    'CustomResourceSubresources',
    () => ({
      status: struct('CustomResourceSubresourceStatus', () => ({}), { omitempty: true, pointer: true }),
      scale: struct(
        'CustomResourceSubresourceScale',
        () => ({ specReplicasPath: str, statusReplicasPath: str, labelSelectorPath: strPtr }),
        { omitempty: true, pointer: true },
      ),
    }),
    { omitempty: true, pointer: true },
  ),
  additionalPrinterColumns: {
    type: {
      kind: 'slice',
      elem: struct('CustomResourceColumnDefinition', () => ({
        name: str,
        type: str,
        format: optStr,
        description: optStr,
        priority: { type: { kind: 'scalar', type: 'int32' }, omitempty: true },
        jsonPath: str,
      })).type,
    },
    omitempty: true,
  },
  selectableFields: {
    type: { kind: 'slice', elem: struct('SelectableField', () => ({ jsonPath: str })).type },
    omitempty: true,
  },
});

const conversionFields = (): Record<string, Field> => ({
  strategy: str,
  webhook: struct(
    'WebhookConversion',
    () => ({
      clientConfig: struct(
        'WebhookClientConfig',
        () => ({
          url: strPtr,
          service: struct(
            'ServiceReference',
            () => ({
              namespace: str,
              name: str,
              path: strPtr,
              port: { type: { kind: 'scalar', type: 'int32' }, omitempty: true, pointer: true },
            }),
            { omitempty: true, pointer: true },
          ),
          caBundle: optStr,
        }),
        { omitempty: true, pointer: true },
      ),
      conversionReviewVersions: { type: { kind: 'slice', elem: str.type } },
    }),
    { omitempty: true, pointer: true },
  ),
});

const crdFields: Record<string, Field> = {
  apiVersion: optStr,
  kind: optStr,
  spec: struct('CustomResourceDefinitionSpec', () => ({
    group: str,
    names: struct('CustomResourceDefinitionNames', namesFields),
    scope: str,
    versions: {
      type: { kind: 'slice', elem: struct('CustomResourceDefinitionVersion', versionFields).type },
    },
    conversion: struct('CustomResourceConversion', conversionFields, { omitempty: true, pointer: true }),
    preserveUnknownFields: optBool,
  })),
  status: struct('CustomResourceDefinitionStatus', () => ({
    conditions: {
      type: {
        kind: 'slice',
        elem: struct('CustomResourceDefinitionCondition', () => ({
          type: str,
          status: str,
          lastTransitionTime: optStr,
          reason: optStr,
          message: optStr,
        })).type,
      },
    },
    acceptedNames: struct('CustomResourceDefinitionNames', namesFields),
    storedVersions: { type: { kind: 'slice', elem: str.type } },
  })),
};

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
