/**
 * The structural-schema rules (apiextensions' ValidateStructural): every field typed, value
 * validations (anyOf, allOf, oneOf, not) free of types, defaults and descriptions, embedded
 * resources typed object, `metadata` at the root restricted to name and generateName (17 #3, #7),
 * patterns that Go can compile. The server sorts these errors by their text.
 */
import { fieldErr, type FieldError } from '../../errors';
import { deepEqual, isPlainObject, type Obj } from '../../types';
import { goRegexpError } from './goRegexp';
import { child, key } from './paths';

type Level = 'root' | 'item' | 'field';

/** Why the server cannot build a structural schema at all (reported only when nothing else is). */
export function structuralInitError(s: Obj | undefined): string | undefined {
  if (!isPlainObject(s)) return undefined;
  if (s.id) return 'id is unsupported';
  if (s.$schema) return '$schema is unsupported';
  if (s.$ref !== undefined) return '$ref is unsupported';
  if (s.definitions && Object.keys(s.definitions).length) return 'definitions is unsupported';
  if (s.additionalItems !== undefined) return 'additionalItems is unsupported';
  if (s.patternProperties && Object.keys(s.patternProperties).length)
    return 'patternProperties is unsupported';
  if (s.dependencies && Object.keys(s.dependencies).length) return 'dependencies is unsupported';
  if (Array.isArray(s.items)) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  const nested: unknown[] = [
    s.items,
    s.not,
    isPlainObject(s.additionalProperties) ? s.additionalProperties : undefined,
    ...Object.values((s.properties ?? {}) as Obj),
    ...((s.allOf ?? []) as unknown[]),
    ...((s.anyOf ?? []) as unknown[]),
    ...((s.oneOf ?? []) as unknown[]),
  ];
  for (const n of nested) {
    const err = structuralInitError(n as Obj | undefined);
    if (err) return err;
  }
  return undefined;
}

const INT_OR_STRING_ANY_OF = [{ type: 'integer' }, { type: 'string' }];

function isIntOrStringAnyOf(s: Obj): boolean {
  return deepEqual(s.anyOf, INT_OR_STRING_ANY_OF);
}

function isIntOrStringAllOf(s: Obj): boolean {
  return Array.isArray(s.allOf) && s.allOf.length > 0 && deepEqual(s.allOf[0].anyOf, INT_OR_STRING_ANY_OF);
}

/** The parts of a schema that a structural schema keeps besides the value validations. */
const STRUCTURAL_KEYS = [
  'type',
  'description',
  'title',
  'nullable',
  'properties',
  'items',
  'additionalProperties',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
];

/** Value validations: what a structural schema keeps under `ValueValidation`. */
const VALUE_VALIDATION_KEYS = [
  'format',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
];

const preserves = (s: Obj) => s['x-kubernetes-preserve-unknown-fields'] === true;
const embedded = (s: Obj) => s['x-kubernetes-embedded-resource'] === true;
const intOrString = (s: Obj) => s['x-kubernetes-int-or-string'] === true;

function invariants(s: Obj, lvl: Level, path: string, out: FieldError[]): void {
  if (s.type === 'array' && s.items === undefined)
    out.push(fieldErr.required(child(path, 'items'), 'must be specified'));
  if (isPlainObject(s.items)) invariants(s.items, 'item', child(path, 'items'), out);
  for (const [k, p] of Object.entries((s.properties ?? {}) as Obj)) {
    invariants(p as Obj, 'field', key(child(path, 'properties'), k), out);
  }
  if (s.additionalProperties !== undefined) {
    if (lvl === 'root')
      out.push(fieldErr.forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (isPlainObject(s.additionalProperties)) {
      invariants(s.additionalProperties, 'field', child(path, 'additionalProperties'), out);
    }
  }
  if (intOrString(s) && preserves(s)) {
    out.push(
      fieldErr.invalidRaw(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        'true',
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (intOrString(s) && embedded(s)) {
    out.push(
      fieldErr.invalidRaw(
        child(path, 'x-kubernetes-embedded-resource'),
        'true',
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  valueValidation(s, isIntOrStringAnyOf(s), isIntOrStringAllOf(s), lvl, path, out);
  const type = (s.type ?? '') as string;
  if (embedded(s) && type !== 'object') {
    if (!type)
      out.push(
        fieldErr.required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'),
      );
    else
      out.push(
        fieldErr.invalid(
          child(path, 'type'),
          type,
          'must be object if x-kubernetes-embedded-resource is true',
        ),
      );
  } else if (!type && !intOrString(s) && !preserves(s)) {
    const where = {
      root: 'at the root',
      item: 'for specified array items',
      field: 'for specified object fields',
    }[lvl];
    out.push(fieldErr.required(child(path, 'type'), `must not be empty ${where}`));
  }
  if (embedded(s) && s.additionalProperties !== undefined) {
    out.push(
      fieldErr.forbidden(
        child(path, 'additionalProperties'),
        'must not be used if x-kubernetes-embedded-resource is set',
      ),
    );
  }
  if (lvl === 'root' && type && type !== 'object') {
    out.push(fieldErr.invalid(child(path, 'type'), type, 'must be object at the root'));
  }
  const resourceLike = lvl === 'root' || embedded(s);
  const props = (s.properties ?? {}) as Obj;
  for (const meta of ['kind', 'apiVersion']) {
    if (props[meta] && resourceLike && props[meta].type !== 'string') {
      out.push(
        fieldErr.invalid(
          child(key(child(path, 'properties'), meta), 'type'),
          props[meta].type ?? '',
          'must be string',
        ),
      );
    }
  }
  if (props.metadata)
    metadataInvariants(
      props.metadata as Obj,
      resourceLike,
      lvl,
      key(child(path, 'properties'), 'metadata'),
      out,
    );
  if (embedded(s) && !preserves(s) && Object.keys(props).length === 0) {
    out.push(
      fieldErr.required(
        child(path, 'properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
}

/**
 * `metadata` of a resource must be an object; at the root it may only constrain name and
 * generateName (any schema inside those passes: 17 #4, #13). A default is reported elsewhere.
 */
function metadataInvariants(
  s: Obj,
  resourceLike: boolean,
  lvl: Level,
  path: string,
  out: FieldError[],
): void {
  if (resourceLike && s.type !== 'object')
    out.push(fieldErr.invalid(child(path, 'type'), s.type ?? '', 'must be object'));
  if (lvl !== 'root') return;
  const names = Object.keys((s.properties ?? {}) as Obj);
  const onlyNames = names.length > 0 && names.every((n) => n === 'name' || n === 'generateName');
  const restricted = [...STRUCTURAL_KEYS, ...VALUE_VALIDATION_KEYS].filter(
    (k) => k !== 'type' && !(k === 'properties' && onlyNames) && isSet(s[k]),
  );
  if (restricted.length > 0) {
    out.push(
      fieldErr.forbidden(
        path,
        'must not specify anything other than name and generateName, but metadata is implicitly specified',
      ),
    );
  }
}

/** Whether a field holds a non-zero value in the Go struct (false, "", empty lists are zero). */
function isSet(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isPlainObject(v)) return Object.keys(v).length > 0;
  return true;
}

function valueValidation(
  s: Obj,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  lvl: Level,
  path: string,
  out: FieldError[],
): void {
  if (!skipAnyOf) {
    ((s.anyOf ?? []) as Obj[]).forEach((v, i) => nested(v, false, lvl, `${child(path, 'anyOf')}[${i}]`, out));
  }
  ((s.allOf ?? []) as Obj[]).forEach((v, i) =>
    nested(v, skipFirstAllOfAnyOf && i === 0, lvl, `${child(path, 'allOf')}[${i}]`, out),
  );
  ((s.oneOf ?? []) as Obj[]).forEach((v, i) => nested(v, false, lvl, `${child(path, 'oneOf')}[${i}]`, out));
  if (isPlainObject(s.not)) nested(s.not, false, lvl, child(path, 'not'), out);
  if (typeof s.pattern === 'string' && s.pattern) {
    const err = goRegexpError(s.pattern);
    if (err)
      out.push(
        fieldErr.invalid(
          child(path, 'pattern'),
          s.pattern,
          `must be a valid regular expression, but isn't: ${err}`,
        ),
      );
  }
}

/** Inside anyOf/allOf/oneOf/not: only value validations may appear. */
function nested(v: Obj, skipAnyOf: boolean, lvl: Level, path: string, out: FieldError[]): void {
  valueValidation(v, skipAnyOf, false, lvl, path, out);
  if (isPlainObject(v.items)) nested(v.items, false, lvl, child(path, 'items'), out);
  for (const [k, p] of Object.entries((v.properties ?? {}) as Obj)) {
    nested(p as Obj, false, 'field', key(child(path, 'properties'), k), out);
  }
  if (v.type) out.push(fieldErr.forbidden(child(path, 'type'), 'must be empty to be structural'));
  if (v.additionalProperties !== undefined) {
    out.push(fieldErr.forbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  }
  if (v.default !== undefined)
    out.push(fieldErr.forbidden(child(path, 'default'), 'must be undefined to be structural'));
  if (v.title) out.push(fieldErr.forbidden(child(path, 'title'), 'must be empty to be structural'));
  if (v.description)
    out.push(fieldErr.forbidden(child(path, 'description'), 'must be empty to be structural'));
  if (v.nullable) out.push(fieldErr.forbidden(child(path, 'nullable'), 'must be false to be structural'));
  if (preserves(v)) {
    out.push(
      fieldErr.forbidden(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        'must be false to be structural',
      ),
    );
  }
  if (embedded(v))
    out.push(
      fieldErr.forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must be false to be structural'),
    );
  if (intOrString(v))
    out.push(fieldErr.forbidden(child(path, 'x-kubernetes-int-or-string'), 'must be false to be structural'));
  if (isSet(v['x-kubernetes-list-map-keys'])) {
    out.push(fieldErr.forbidden(child(path, 'x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  }
  if (v['x-kubernetes-list-type'] !== undefined) {
    out.push(fieldErr.forbidden(child(path, 'x-kubernetes-list-type'), 'must be undefined to be structural'));
  }
  if (v['x-kubernetes-map-type'] !== undefined) {
    out.push(fieldErr.forbidden(child(path, 'x-kubernetes-map-type'), 'must be undefined to be structural'));
  }
  if (isSet(v['x-kubernetes-validations'])) {
    out.push(fieldErr.forbidden(child(path, 'x-kubernetes-validations'), 'must be empty to be structural'));
  }
  if (isPlainObject(v.properties) && v.properties.metadata !== undefined) {
    out.push(
      fieldErr.forbidden(
        key(child(path, 'properties'), 'metadata'),
        'must not be specified in a nested context',
      ),
    );
  }
}

/**
 * Completeness, which the server checks for the root's value validations only: what they
 * constrain must also be declared structurally (so `oneOf` under `spec` may name undeclared
 * properties, 17 #107).
 */
function completeness(s: Obj, path: string, out: FieldError[]): void {
  const visit = (v: Obj | undefined, st: Obj | undefined, sPath: string, vPath: string): void => {
    if (!isPlainObject(v)) return;
    if (!isPlainObject(st)) {
      out.push(fieldErr.required(sPath, `because it is defined in ${vPath}`));
      return;
    }
    visitValidations(v, st, sPath, vPath);
    if (isPlainObject(v.items))
      visit(
        v.items,
        isPlainObject(st.items) ? st.items : undefined,
        child(sPath, 'items'),
        child(vPath, 'items'),
      );
    for (const [k, p] of Object.entries((v.properties ?? {}) as Obj)) {
      const sp = (st.properties ?? {})[k] as Obj | undefined;
      const target =
        sp ?? (isPlainObject(st.additionalProperties) ? (st.additionalProperties as Obj) : undefined);
      visit(p as Obj, target, key(child(sPath, 'properties'), k), key(child(vPath, 'properties'), k));
    }
  };
  const visitValidations = (v: Obj, st: Obj, sPath: string, vPath: string): void => {
    if (isPlainObject(v.not)) visit(v.not, st, sPath, child(vPath, 'not'));
    for (const junctor of ['allOf', 'anyOf', 'oneOf']) {
      ((v[junctor] ?? []) as Obj[]).forEach((x, i) => visit(x, st, sPath, `${child(vPath, junctor)}[${i}]`));
    }
  };
  visitValidations(s, s, path, path);
}

/** ValidateStructural: the invariants and the root's completeness, sorted as the server sorts them. */
export function validateStructural(schema: Obj, path: string): FieldError[] {
  const out: FieldError[] = [];
  invariants(schema, 'root', path, out);
  completeness(schema, path, out);
  const text = (e: FieldError) => `${e.field}: ${e.detail}`;
  return out.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}
