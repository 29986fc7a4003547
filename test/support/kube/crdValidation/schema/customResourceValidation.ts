/**
 * One `openAPIV3Schema` (shared: spec.validation, or a version's): structural rules first, and only
 * when those hold, the defaults; then the keyword walk with the CEL rules; then the CRD-wide CEL
 * cost. A schema the server cannot even convert is reported only when nothing else is wrong.
 */
import { notEmulated } from '../../errors';
import { fieldErr, type FieldError } from '../../errors';
import type { Obj } from '../../types';
import { CelSchemaContext, costErrorMessage, CRD_COST_LIMIT } from './celContext';
import { validateDefaults } from './defaults';
import { walkOpenApiSchema } from './openApiRules';
import { child } from './paths';
import { structuralInitError, validateStructural } from './structural';

/** JSONSchemaProps' fields in Go struct order, and which may sit at the root beside the status subresource. */
const ROOT_FIELDS: [string, boolean][] = [
  ['id', false],
  ['$schema', false],
  ['$ref', false],
  ['description', true],
  ['type', true],
  ['nullable', false],
  ['format', true],
  ['title', true],
  ['default', false],
  ['maximum', true],
  ['exclusiveMaximum', true],
  ['minimum', true],
  ['exclusiveMinimum', true],
  ['maxLength', true],
  ['minLength', true],
  ['pattern', true],
  ['maxItems', true],
  ['minItems', true],
  ['uniqueItems', true],
  ['multipleOf', true],
  ['enum', false],
  ['maxProperties', false],
  ['minProperties', false],
  ['required', true],
  ['items', true],
  ['allOf', false],
  ['oneOf', false],
  ['anyOf', false],
  ['not', false],
  ['properties', true],
  ['additionalProperties', false],
  ['patternProperties', false],
  ['dependencies', false],
  ['additionalItems', false],
  ['definitions', false],
  ['externalDocs', true],
  ['example', true],
  ['x-kubernetes-preserve-unknown-fields', true],
  ['x-kubernetes-embedded-resource', false],
  ['x-kubernetes-int-or-string', false],
  ['x-kubernetes-list-map-keys', false],
  ['x-kubernetes-list-type', false],
  ['x-kubernetes-map-type', false],
  ['x-kubernetes-validations', true],
];

/** With the status subresource, the root may only hold what survives moving status out. */
function statusRootErrors(schema: Obj, path: string): FieldError[] {
  for (const [name, allowed] of ROOT_FIELDS) {
    if (schema[name] === undefined) continue;
    if (name === 'type') {
      if (schema.type === 'object') continue;
      return [
        fieldErr.invalid(
          child(path, 'type'),
          schema.type,
          'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
        ),
      ];
    }
    if (!allowed) {
      // The server quotes the whole schema struct, pointer addresses included.
      throw notEmulated(
        `the root schema field ${name} beside the status subresource (the error quotes Go pointers)`,
      );
    }
  }
  return [];
}

export interface SchemaOptions {
  statusEnabled: boolean;
  /** The version's schema did not change in this update: rules over budget stay accepted. */
  suppressPerExpressionCost: boolean;
}

/** `validation` is `{openAPIV3Schema}`; `path` is where it sits (spec.validation, spec.versions[i].schema). */
export function validateCustomResourceValidation(
  validation: Obj | undefined,
  path: string,
  opts: SchemaOptions,
): FieldError[] {
  const schema = validation?.openAPIV3Schema as Obj | undefined;
  if (!schema) return [];
  const at = child(path, 'openAPIV3Schema');
  const errs: FieldError[] = [];
  if (opts.statusEnabled) errs.push(...statusRootErrors(schema, at));
  if (schema.nullable === true)
    errs.push(fieldErr.forbidden(child(at, 'nullable'), 'nullable cannot be true at the root'));
  let cel: CelSchemaContext | undefined;
  const initError = structuralInitError(schema);
  if (!initError) {
    const structural = validateStructural(schema, at);
    const defaults = structural.length ? [] : validateDefaults(schema, at);
    errs.push(...structural, ...defaults);
    if (!structural.length && !defaults.length)
      cel = CelSchemaContext.root(schema, opts.suppressPerExpressionCost);
  }
  const walked = walkOpenApiSchema(schema, at, { allowDefaults: true, insideResourceMeta: false }, true, cel);
  errs.push(...walked.schema, ...walked.cel);
  if (errs.length === 0 && initError) errs.push(fieldErr.invalid(at, '', initError));
  if (cel && cel.total.total > CRD_COST_LIMIT) {
    for (const rule of cel.total.mostExpensive) {
      errs.push(
        fieldErr.forbidden(
          rule.path,
          'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
        ),
      );
    }
    errs.push(
      fieldErr.forbidden(
        at,
        costErrorMessage(
          'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
          cel.total.total,
          CRD_COST_LIMIT,
        ),
      ),
    );
  }
  return errs;
}
