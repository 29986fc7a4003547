/**
 * The CEL type of a schema node as the API server declares it for x-kubernetes-validations
 * (apiserver's SchemaDeclType): objects with their properties as fields, maps for
 * additionalProperties, lists, int-or-string as dyn, date-time as timestamp. Each type also
 * carries what cost estimation needs: the largest size a value can have in a 3 MiB request and
 * the smallest JSON it can be serialized to.
 */
import { isPlainObject, type Obj } from '../types';

/** The request size the server assumes when no maxLength/maxItems bounds a value. */
const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;
const MIN_DURATION_SIZE_JSON = 3;
const MIN_DATETIME_SIZE_JSON = 21;
const JSON_DATE_SIZE = 12;
const MAX_DURATION_SIZE_JSON = 32;
const MAX_DATETIME_SIZE_JSON = 37;

export interface DeclType {
  kind:
    | 'object'
    | 'map'
    | 'list'
    | 'string'
    | 'bytes'
    | 'bool'
    | 'int'
    | 'double'
    | 'dyn'
    | 'timestamp'
    | 'duration';
  /** Object fields by their CEL (escaped) names. */
  fields?: Map<string, DeclType>;
  /** List items or map values. */
  elem?: DeclType;
  /** Map keys (strings). */
  key?: DeclType;
  /** The largest size: string length in bytes, list items, map entries. */
  maxElements: number;
  minSerializedSize: number;
}

const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** A property name as CEL sees it (apiserver's Escape), or undefined when it cannot be named. */
function escapeFieldName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  const escaped = name
    .replace(/__/g, '__underscores__')
    .replace(/\./g, '__dot__')
    .replace(/-/g, '__dash__')
    .replace(/\//g, '__slash__');
  return /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(escaped) ? escaped : undefined;
}

function simple(kind: DeclType['kind'], minSerializedSize: number, maxElements = 0): DeclType {
  return { kind, minSerializedSize, maxElements };
}

/** How many elements of this serialized size fit into one request (apiserver's MaxCardinality). */
export function estimatedCardinality(minSize: number): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSize + 1));
}

function maxStringLength(s: Obj): number {
  if (typeof s.maxLength === 'number') return Math.max(0, s.maxLength) * 4;
  if (Array.isArray(s.enum) && s.enum.length > 0) {
    return Math.max(
      0,
      ...s.enum.filter((v) => typeof v === 'string').map((v: string) => Buffer.byteLength(v)),
    );
  }
  if (s.format === 'duration') return MAX_DURATION_SIZE_JSON;
  if (s.format === 'date') return JSON_DATE_SIZE;
  if (s.format === 'date-time') return MAX_DATETIME_SIZE_JSON;
  return MAX_REQUEST_SIZE_BYTES - 2;
}

/** apiVersion, kind and metadata.name/generateName are always there at a resource's root. */
function withTypeAndObjectMeta(s: Obj): Obj {
  const str = { type: 'string' };
  return {
    ...s,
    properties: {
      ...(s.properties ?? {}),
      kind: str,
      apiVersion: str,
      metadata: { type: 'object', properties: { name: str, generateName: str } },
    },
  };
}

export function schemaDeclType(schema: Obj | undefined, isResourceRoot: boolean): DeclType | undefined {
  if (!isPlainObject(schema)) return undefined;
  if (schema['x-kubernetes-int-or-string'] === true) return simple('dyn', 1, MAX_REQUEST_SIZE_BYTES - 2);
  const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  switch (s.type) {
    case 'array': {
      if (!isPlainObject(s.items)) return undefined;
      const items = schemaDeclType(s.items, s.items['x-kubernetes-embedded-resource'] === true);
      if (!items) return undefined;
      const maxItems =
        typeof s.maxItems === 'number'
          ? Math.max(0, s.maxItems)
          : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (items.minSerializedSize + 1));
      return { kind: 'list', elem: items, maxElements: maxItems, minSerializedSize: 2 };
    }
    case 'object': {
      if (isPlainObject(s.additionalProperties)) {
        const values = schemaDeclType(
          s.additionalProperties,
          s.additionalProperties['x-kubernetes-embedded-resource'] === true,
        );
        if (!values) return undefined;
        const maxProperties =
          typeof s.maxProperties === 'number'
            ? Math.max(0, s.maxProperties)
            : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (values.minSerializedSize + 6));
        return {
          kind: 'map',
          key: simple('string', MIN_STRING_SIZE),
          elem: values,
          maxElements: maxProperties,
          minSerializedSize: 2,
        };
      }
      const fields = new Map<string, DeclType>();
      const required = new Set((s.required ?? []) as string[]);
      let minSerializedSize = 2;
      for (const [name, prop] of Object.entries((s.properties ?? {}) as Obj)) {
        const t = schemaDeclType(prop as Obj, (prop as Obj)['x-kubernetes-embedded-resource'] === true);
        if (!t) continue;
        const escaped = escapeFieldName(name);
        if (escaped) fields.set(escaped, t);
        // Required properties without a default are always serialized (the server fills defaults in).
        if (required.has(name) && (prop as Obj).default === undefined) {
          minSerializedSize += name.length + t.minSerializedSize + 4;
        }
      }
      return { kind: 'object', fields, maxElements: 0, minSerializedSize };
    }
    case 'string':
      if (s.format === 'byte') return simple('bytes', MIN_STRING_SIZE, maxStringLength(s));
      if (s.format === 'duration') return simple('duration', MIN_DURATION_SIZE_JSON, MAX_DURATION_SIZE_JSON);
      if (s.format === 'date') return simple('timestamp', JSON_DATE_SIZE, JSON_DATE_SIZE);
      if (s.format === 'date-time')
        return simple('timestamp', MIN_DATETIME_SIZE_JSON, MAX_DATETIME_SIZE_JSON);
      return simple('string', MIN_STRING_SIZE, maxStringLength(s));
    case 'boolean':
      return simple('bool', MIN_BOOL_SIZE);
    case 'number':
      return simple('double', MIN_NUMBER_SIZE);
    case 'integer':
      return simple('int', MIN_NUMBER_SIZE);
    default:
      return undefined;
  }
}
