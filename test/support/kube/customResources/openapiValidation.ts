import { fieldErr, notEmulated, type FieldError } from '../errors';
import type { Schema } from '../schema';
import { deepEqual, isPlainObject } from '../types';
import { goSyntax } from './goValues';

/** The stored value at the same place, for ratcheting (absent: not correlated). */
type Old = { value: unknown } | undefined;

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (isPlainObject(v)) return 'object';
  return typeof v;
}

function typeMatches(v: unknown, type: string): boolean {
  const t = jsonType(v);
  return t === type || (type === 'number' && t === 'integer');
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function child(path: string, k: string): string {
  return path ? `${path}.${k}` : k;
}

function additionalOf(s: Schema): Schema | undefined {
  return isPlainObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
}

/**
 * kube-openapi's schema validation as the apiextensions server runs it on custom resources, with
 * its error texts and order: type, anyOf/allOf/oneOf/not, string, format, number, array, enum,
 * object. `name` is the path inside the validated value (the "in body" text), `field` what the
 * error reports (the two differ when only `status` is validated). With `old`, errors inside a
 * value equal to the stored one are dropped (CRDValidationRatcheting, on by default in 1.32).
 */
export function validateOpenApi(
  value: unknown,
  schema: Schema,
  fieldPrefix: string,
  old?: Old,
): FieldError[] {
  return new OpenApiWalk(fieldPrefix).walk(value, schema, '', old);
}

class OpenApiWalk {
  constructor(private readonly fieldPrefix: string) {}

  private field(name: string): string {
    return this.fieldPrefix ? (name ? `${this.fieldPrefix}.${name}` : this.fieldPrefix) : name;
  }

  walk(value: unknown, s: Schema, name: string, old: Old): FieldError[] {
    const errs = this.node(value, s, name, old);
    if (errs.length && old && deepEqual(value, old.value)) return [];
    return errs;
  }

  private node(value: unknown, s: Schema, name: string, old: Old): FieldError[] {
    const errs: FieldError[] = [];
    const types = s['x-kubernetes-int-or-string'] ? ['integer', 'string'] : s.type ? [s.type] : [];
    if (value === null && s.nullable) return errs;
    if (types.length && !types.some((t) => typeMatches(value, t))) {
      const actual = jsonType(value);
      errs.push(
        fieldErr.typeInvalid(
          this.field(name),
          JSON.stringify(actual),
          `${name} in body must be of type ${types.join(',')}: ${JSON.stringify(actual)}`,
        ),
      );
    }
    if (value === null) {
      errs.push(...this.enumErrors(value, s, name));
      return errs;
    }
    errs.push(...this.composition(value, s, name));
    if (typeof value === 'string') errs.push(...this.stringErrors(value, s, name));
    if (typeof value === 'number') errs.push(...this.numberErrors(value, s, name));
    if (Array.isArray(value)) errs.push(...this.arrayErrors(value, s, name, old));
    errs.push(...this.enumErrors(value, s, name));
    if (isPlainObject(value)) errs.push(...this.objectErrors(value, s, name, old));
    return errs;
  }

  private composition(value: unknown, s: Schema, name: string): FieldError[] {
    const errs: FieldError[] = [];
    const composite = (text: string) => fieldErr.invalid('<nil>', '', `"${name}" ${text}`);
    if (s.allOf) {
      const failures = s.allOf.map((sub) => this.walk(value, sub, name, undefined));
      if (failures.some((f) => f.length)) errs.push(composite('must validate all the schemas (allOf)'));
      errs.push(...failures.flat());
    }
    if (s.oneOf) {
      const results = s.oneOf.map((sub) => this.walk(value, sub, name, undefined));
      const ok = results.filter((r) => r.length === 0).length;
      if (ok !== 1) errs.push(composite('must validate one and only one schema (oneOf)'));
      if (ok === 0) errs.push(...(results[0] ?? []));
    }
    if (s.anyOf) {
      const results = s.anyOf.map((sub) => this.walk(value, sub, name, undefined));
      // The first failing branch is reported (none matches more than another, kube-openapi).
      if (!results.some((r) => r.length === 0)) {
        errs.push(composite('must validate at least one schema (anyOf)'));
        errs.push(...(results[0] ?? []));
      }
    }
    if (s.not && this.walk(value, s.not, name, undefined).length === 0) {
      errs.push(composite('must not validate the schema (not)'));
    }
    return errs;
  }

  private stringErrors(value: string, s: Schema, name: string): FieldError[] {
    const errs: FieldError[] = [];
    const length = [...value].length;
    if (s.maxLength !== undefined && length > s.maxLength) {
      errs.push({
        type: 'TooLong',
        field: this.field(name),
        detail: `Too long: may not be more than ${s.maxLength} ${s.maxLength === 1 ? 'byte' : 'bytes'}`,
      });
    }
    if (s.minLength !== undefined && length < s.minLength) {
      errs.push(
        fieldErr.invalid(
          this.field(name),
          value,
          `${name} in body should be at least ${s.minLength} chars long`,
        ),
      );
    }
    if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(value)) {
      errs.push(fieldErr.invalid(this.field(name), value, `${name} in body should match '${s.pattern}'`));
    }
    if (s.format && !['int32', 'int64', 'float', 'double', 'byte', 'password'].includes(s.format)) {
      const valid =
        s.format === 'date-time' || s.format === 'datetime'
          ? RFC3339.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T')))
          : s.format === 'date'
            ? DATE.test(value)
            : undefined;
      if (valid === undefined) throw notEmulated(`format "${s.format}" of custom resource fields`);
      if (!valid) {
        errs.push(
          fieldErr.typeInvalid(
            this.field(name),
            JSON.stringify(value),
            `${name} in body must be of type ${s.format}: ${JSON.stringify(value)}`,
          ),
        );
      }
    }
    return errs;
  }

  private numberErrors(value: number, s: Schema, name: string): FieldError[] {
    const errs: FieldError[] = [];
    if (s.multipleOf !== undefined && !Number.isInteger(value / s.multipleOf)) {
      errs.push(
        fieldErr.invalid(this.field(name), value, `${name} in body should be a multiple of ${s.multipleOf}`),
      );
    }
    if (s.maximum !== undefined && (s.exclusiveMaximum ? value >= s.maximum : value > s.maximum)) {
      const rel = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
      errs.push(fieldErr.invalid(this.field(name), value, `${name} in body should be ${rel} ${s.maximum}`));
    }
    if (s.minimum !== undefined && (s.exclusiveMinimum ? value <= s.minimum : value < s.minimum)) {
      const rel = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      errs.push(fieldErr.invalid(this.field(name), value, `${name} in body should be ${rel} ${s.minimum}`));
    }
    return errs;
  }

  private arrayErrors(value: unknown[], s: Schema, name: string, old: Old): FieldError[] {
    const errs: FieldError[] = [];
    if (s.items) {
      const olds = correlateItems(value, s, old);
      value.forEach((v, i) => errs.push(...this.walk(v, s.items!, `${name}[${i}]`, olds[i])));
    }
    if (s.minItems !== undefined && value.length < s.minItems) {
      errs.push(
        fieldErr.invalid(
          this.field(name),
          value.length,
          `${name} in body should have at least ${s.minItems} items`,
        ),
      );
    }
    if (s.maxItems !== undefined && value.length > s.maxItems) {
      errs.push({
        type: 'TooMany',
        field: this.field(name),
        detail: `Too many: ${value.length}: must have at most ${s.maxItems} ${s.maxItems === 1 ? 'item' : 'items'}`,
      });
    }
    if (s.uniqueItems && value.some((v, i) => value.findIndex((w) => deepEqual(v, w)) !== i)) {
      errs.push(
        fieldErr.invalidRaw(
          this.field(name),
          goSyntax(value),
          `${name} in body shouldn't contain duplicates`,
        ),
      );
    }
    return errs;
  }

  private enumErrors(value: unknown, s: Schema, name: string): FieldError[] {
    if (!s.enum || s.enum.some((e) => deepEqual(e, value))) return [];
    const allowed = s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
    return [fieldErr.notSupported(this.field(name), value, allowed)];
  }

  private objectErrors(value: Record<string, unknown>, s: Schema, name: string, old: Old): FieldError[] {
    const count = Object.keys(value).length;
    if (s.minProperties !== undefined && count < s.minProperties) {
      return [
        fieldErr.invalid(
          this.field(name),
          '',
          `${name} in body should have at least ${s.minProperties} properties`,
        ),
      ];
    }
    if (s.maxProperties !== undefined && count > s.maxProperties) {
      return [
        {
          type: 'TooMany',
          field: this.field(name),
          detail: `Too many: ${count}: must have at most ${s.maxProperties} ${s.maxProperties === 1 ? 'item' : 'items'}`,
        },
      ];
    }
    const errs: FieldError[] = [];
    const oldMap = old && isPlainObject(old.value) ? old.value : undefined;
    const oldAt = (k: string): Old => (oldMap && k in oldMap ? { value: oldMap[k] } : undefined);
    const additional = additionalOf(s);
    if (additional) {
      for (const [k, v] of Object.entries(value)) {
        if (!s.properties?.[k]) errs.push(...this.walk(v, additional, child(name, k), oldAt(k)));
      }
    }
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      if (k in value) errs.push(...this.walk(value[k], prop, child(name, k), oldAt(k)));
    }
    for (const r of s.required ?? []) {
      if (!(r in value)) errs.push(fieldErr.required(this.field(child(name, r))));
    }
    return errs;
  }
}

/** Only list-type map items correlate with stored ones (by their keys); other lists do not. */
function correlateItems(value: unknown[], s: Schema, old: Old): Old[] {
  const keys = s['x-kubernetes-list-map-keys'];
  if (!old || !Array.isArray(old.value) || s['x-kubernetes-list-type'] !== 'map' || !keys) return [];
  const oldItems = old.value;
  return value.map((v) => {
    if (!isPlainObject(v)) return undefined;
    const match = oldItems.find((o) => isPlainObject(o) && keys.every((k) => deepEqual(o[k], v[k])));
    return match === undefined ? undefined : { value: match };
  });
}
