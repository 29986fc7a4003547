/**
 * The Go types of apiextensions.k8s.io/v1 a CRD body is decoded into, reduced to what decoding
 * needs: each field's JSON name, type, `omitempty`, and whether it is a pointer. JSONSchemaProps'
 * "or" types (OrBool, OrArray, OrStringArray) have their own UnmarshalJSON, which decodes without
 * strictness: unknown fields under them vanish silently.
 */
import { isPlainObject } from '../types';

type Scalar = 'string' | 'bool' | 'int64' | 'int32' | 'float64';

/** A Go type of the v1 API, reduced to what decoding needs. */
export type GoType =
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

export interface Field {
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

export const crdFields: Record<string, Field> = {
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
