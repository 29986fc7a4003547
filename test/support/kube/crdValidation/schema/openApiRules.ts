/**
 * The server's walk over an OpenAPI v3 schema (ValidateCustomResourceDefinitionOpenAPISchema):
 * unsupported keywords, defaults where they may not be, additionalProperties beside properties,
 * list and map types, list-map keys, and the static checks of x-kubernetes-validations, whose CEL
 * rules are compiled only where the subtree has no schema error. Schema errors come first, CEL
 * errors after them, each in walk order.
 */
import { fieldErr, type FieldError } from '../../errors';
import { isPlainObject, type Obj } from '../../types';
import type { CelSchemaContext } from './celContext';
import { listAndMapTypeErrors, mapSetKeyErrors } from './listTypeRules';
import { child, index, key } from './paths';
import { validateRules } from './validationRules';

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/** What the walk carries down (the server's specStandardValidator). */
export interface WalkState {
  allowDefaults: boolean;
  disallowDefaultsReason?: string;
  insideResourceMeta: boolean;
  /** The highest path under which oldSelf cannot be correlated (lists that are not maps …). */
  uncorrelatable?: string;
}

export interface Errors {
  schema: FieldError[];
  cel: FieldError[];
}

function forbidDefaults(st: WalkState, reason: string): WalkState {
  return { ...st, allowDefaults: false, disallowDefaultsReason: reason };
}

function forbidOldSelf(st: WalkState, path: string): WalkState {
  return st.uncorrelatable ? st : { ...st, uncorrelatable: path };
}

/** A map's entries correlate between revisions unless its map type is unknown to the server. */
function mapCorrelatable(mapType: unknown): boolean {
  return mapType === undefined || mapType === 'granular' || mapType === 'atomic';
}

function keywordErrors(s: Obj, st: WalkState, path: string, out: FieldError[]): void {
  if (s.type && !OPENAPI_TYPES.includes(s.type))
    out.push(fieldErr.notSupported(child(path, 'type'), s.type, OPENAPI_TYPES));
  if (s.default !== undefined && !st.allowDefaults) {
    const detail = st.disallowDefaultsReason
      ? `must not be set ${st.disallowDefaultsReason}`
      : 'must not be set';
    out.push(fieldErr.forbidden(child(path, 'default'), detail));
  }
  if (s.id) out.push(fieldErr.forbidden(child(path, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined)
    out.push(fieldErr.forbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (isPlainObject(s.patternProperties) && Object.keys(s.patternProperties).length) {
    out.push(fieldErr.forbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  }
  if (isPlainObject(s.definitions) && Object.keys(s.definitions).length) {
    out.push(fieldErr.forbidden(child(path, 'definitions'), 'definitions is not supported'));
  }
  if (s.dependencies !== undefined)
    out.push(fieldErr.forbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined) out.push(fieldErr.forbidden(child(path, '$ref'), '$ref is not supported'));
  if (s.type === 'null') {
    out.push(
      fieldErr.forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'),
    );
  }
  if (Array.isArray(s.items))
    out.push(fieldErr.forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (st.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    out.push(
      fieldErr.forbidden(
        child(path, 'x-kubernetes-embedded-resource'),
        'must not be used inside of resource meta',
      ),
    );
  }
}

export function walkOpenApiSchema(
  s: Obj | undefined,
  path: string,
  st: WalkState,
  isRoot: boolean,
  cel: CelSchemaContext | undefined,
): Errors {
  const errs: Errors = { schema: [], cel: [] };
  if (!isPlainObject(s)) return errs;
  const add = (sub: Errors) => {
    errs.schema.push(...sub.schema);
    errs.cel.push(...sub.cel);
  };
  keywordErrors(s, st, path, errs.schema);
  if (s.uniqueItems === true) {
    errs.schema.push(
      fieldErr.forbidden(
        child(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  const props = (s.properties ?? {}) as Obj;
  if (s.additionalProperties !== undefined) {
    if (
      Object.keys(props).length > 0 &&
      (s.additionalProperties === false || isPlainObject(s.additionalProperties))
    ) {
      errs.schema.push(
        fieldErr.forbidden(
          child(path, 'additionalProperties'),
          'additionalProperties and properties are mutual exclusive',
        ),
      );
    }
    if (isPlainObject(s.additionalProperties)) {
      const sub = st.insideResourceMeta
        ? forbidDefaults(st, 'inside additionalProperties applying to object metadata')
        : st;
      add(
        walkOpenApiSchema(
          s.additionalProperties,
          child(path, 'additionalProperties'),
          sub,
          false,
          cel?.additionalProperties(),
        ),
      );
    }
  }
  for (const name of Object.keys(props).sort()) {
    let sub = mapCorrelatable(s['x-kubernetes-map-type']) ? st : forbidOldSelf(st, path);
    if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = forbidDefaults(sub, `in top-level ${name}`);
    }
    add(
      walkOpenApiSchema(
        props[name] as Obj,
        key(child(path, 'properties'), name),
        sub,
        false,
        cel?.property(name),
      ),
    );
  }
  if (isPlainObject(s.not)) add(walkOpenApiSchema(s.not, child(path, 'not'), st, false, undefined));
  for (const junctor of ['allOf', 'oneOf', 'anyOf']) {
    ((s[junctor] ?? []) as Obj[]).forEach((x, i) =>
      add(walkOpenApiSchema(x, index(child(path, junctor), i), st, false, undefined)),
    );
  }
  for (const name of Object.keys((s.definitions ?? {}) as Obj).sort()) {
    add(walkOpenApiSchema(s.definitions[name], key(child(path, 'definitions'), name), st, false, undefined));
  }
  if (s.items !== undefined) {
    const sub = s['x-kubernetes-list-type'] === 'map' ? st : forbidOldSelf(st, path);
    if (isPlainObject(s.items))
      add(walkOpenApiSchema(s.items, child(path, 'items'), sub, false, cel?.items()));
    if (Array.isArray(s.items)) {
      s.items.forEach((x, i) =>
        add(walkOpenApiSchema(x as Obj, index(child(path, 'items'), i), sub, false, undefined)),
      );
    }
  }
  for (const name of Object.keys((s.dependencies ?? {}) as Obj).sort()) {
    if (isPlainObject(s.dependencies[name])) {
      add(
        walkOpenApiSchema(s.dependencies[name], key(child(path, 'dependencies'), name), st, false, undefined),
      );
    }
  }
  listAndMapTypeErrors(s, path, errs.schema);
  mapSetKeyErrors(s, path, errs.schema);
  if (Array.isArray(s['x-kubernetes-validations']) && s['x-kubernetes-validations'].length > 0) {
    validateRules(s, path, st, cel, errs);
  }
  return errs;
}
