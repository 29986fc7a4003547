import { fieldErr, type FieldError } from './errors';
import { clone, isPlainObject, type Obj } from './types';

/** The part of a CRD's structural schema (JSONSchemaProps) the emulator honours. */
export interface Schema {
  type?: string;
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  minItems?: number;
  default?: unknown;
  nullable?: boolean;
  additionalProperties?: Schema | boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
}

/** ObjectMeta's JSON fields: anything else under metadata is unknown (02-cr #20 `metadata.colour`). */
const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/**
 * Drops fields the schema does not declare and returns their paths in the order the server's
 * Warning headers list them (sorted by path, 02-cr #16/#18).
 */
export function prune(value: unknown, schema: Schema, path: string, out: string[], root = false): void {
  if (schema['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((v, i) => prune(v, schema.items!, `${path}[${i}]`, out));
    return;
  }
  if (!isPlainObject(value)) return;
  if (root && isPlainObject(value.metadata)) {
    for (const k of Object.keys(value.metadata).sort()) {
      if (!OBJECT_META_FIELDS.has(k)) {
        out.push(`metadata.${k}`);
        delete value.metadata[k];
      }
    }
  }
  if (schema.properties) {
    for (const k of Object.keys(value).sort()) {
      if (root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const child = schema.properties[k];
      if (!child) {
        out.push(join(path, k));
        delete value[k];
      } else {
        prune(value[k], child, join(path, k), out);
      }
    }
  } else if (isPlainObject(schema.additionalProperties)) {
    for (const k of Object.keys(value)) prune(value[k], schema.additionalProperties, join(path, k), out);
  }
}

/** Structural defaulting: a missing property with a default gets it, then its own defaults. */
export function applyDefaults(value: unknown, schema: Schema): void {
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((v) => applyDefaults(v, schema.items!));
    return;
  }
  if (!isPlainObject(value) || !schema.properties) return;
  for (const [k, child] of Object.entries(schema.properties)) {
    if ((value[k] === undefined || (value[k] === null && !child.nullable)) && child.default !== undefined) {
      value[k] = clone(child.default);
    }
    if (value[k] !== undefined) applyDefaults(value[k], child);
  }
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(v: unknown, type: string): boolean {
  const t = jsonType(v);
  return t === type || (type === 'number' && t === 'integer');
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Go's %#v of a map list key set (02-cr #12 `map[string]interface {}{"name":"1X"}`). */
function goMapKey(keys: string[], item: Obj): string {
  const parts = keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(item[k])}`);
  return `map[string]interface {}{${parts.join(', ')}}`;
}

/**
 * OpenAPI validation with the apiextensions error texts. Schema errors come first, list-type
 * (set/map) duplicates after them, as in 02-cr #12.
 */
export function validateSchema(value: unknown, schema: Schema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const listErrs: FieldError[] = [];
  walk(value, schema, path, errs, listErrs);
  return [...errs, ...listErrs];
}

function walk(
  value: unknown,
  schema: Schema,
  path: string,
  errs: FieldError[],
  listErrs: FieldError[],
): void {
  if (value === null && schema.nullable) return;
  if (schema.type && !schema['x-kubernetes-int-or-string'] && !typeMatches(value, schema.type)) {
    const t = jsonType(value);
    errs.push(
      fieldErr.typeInvalid(path, JSON.stringify(t), `${path} in body must be of type ${schema.type}: "${t}"`),
    );
    return;
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) {
    errs.push(fieldErr.notSupported(path, value, schema.enum.map(String)));
  }
  if (typeof value === 'string') {
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) {
      errs.push({
        type: 'TooLong',
        field: path,
        detail: `Too long: may not be more than ${schema.maxLength} bytes`,
      });
    }
    if (schema.minLength !== undefined && [...value].length < schema.minLength) {
      errs.push(
        fieldErr.invalid(path, value, `${path} in body should be at least ${schema.minLength} chars long`),
      );
    }
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) {
      errs.push(fieldErr.invalid(path, value, `${path} in body should match '${schema.pattern}'`));
    }
    if (schema.format === 'date-time' && !RFC3339.test(value)) {
      // The format error names the leaf, not the path (05-status #14).
      const leaf = path
        .split('.')
        .pop()!
        .replace(/\[\d+\]$/, '');
      errs.push(
        fieldErr.typeInvalid(
          path,
          JSON.stringify(value),
          `${leaf} in body must be of type date-time: ${JSON.stringify(value)}`,
        ),
      );
    }
  }
  if (typeof value === 'number') {
    if (schema.maximum !== undefined && value > schema.maximum) {
      errs.push(
        fieldErr.invalid(path, value, `${path} in body should be less than or equal to ${schema.maximum}`),
      );
    }
    if (schema.minimum !== undefined && value < schema.minimum) {
      errs.push(
        fieldErr.invalid(path, value, `${path} in body should be greater than or equal to ${schema.minimum}`),
      );
    }
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      errs.push({
        type: 'TooMany',
        field: path,
        detail: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
      });
    }
    if (schema.items) value.forEach((v, i) => walk(v, schema.items!, `${path}[${i}]`, errs, listErrs));
    listDuplicates(value, schema, path, listErrs);
  }
  if (isPlainObject(value)) {
    for (const r of schema.required ?? []) {
      if (value[r] === undefined) errs.push(fieldErr.required(join(path, r)));
    }
    for (const [k, v] of Object.entries(value)) {
      const child =
        schema.properties?.[k] ??
        (isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
      if (child && v !== undefined) walk(v, child, join(path, k), errs, listErrs);
    }
  }
}

function listDuplicates(value: unknown[], schema: Schema, path: string, out: FieldError[]): void {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') {
    const seen = new Set<string>();
    value.forEach((v, i) => {
      const key = JSON.stringify(v);
      if (seen.has(key)) out.push(fieldErr.duplicate(`${path}[${i}]`, JSON.stringify(v)));
      seen.add(key);
    });
  } else if (listType === 'map') {
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    const seen = new Set<string>();
    value.forEach((v, i) => {
      if (!isPlainObject(v)) return;
      const key = JSON.stringify(keys.map((k) => v[k]));
      if (seen.has(key)) out.push(fieldErr.duplicate(`${path}[${i}]`, goMapKey(keys, v)));
      seen.add(key);
    });
  }
}
