import type { FieldError } from '../errors';
import { warning } from '../handlers/context';
import type { Schema } from '../schema';
import { isPlainObject, type Obj } from '../types';
import { celRuleErrors, hasCelRules } from './celRules';
import { embeddedResourceErrors } from './embedded';
import { listTypeErrors } from './listTypes';
import { finalizerWarnings, objectMetaErrors, objectMetaUpdateErrors } from './objectMeta';
import { validateOpenApi } from './openapiValidation';
import { scaleSpecErrors, scaleStatusErrors, type ScalePaths } from './scalePaths';

/** What the validation of one custom resource kind needs from its CRD version. */
export interface CustomResourceRules {
  schema: Schema;
  namespaced: boolean;
  scale?: ScalePaths;
}

/**
 * The errors that stop CEL from running (hasBlockingErr): CEL then adds one cause saying so,
 * with field `<nil>` (18 #11 …). Only when the schema has CEL rules at all.
 */
const BLOCKING: FieldError['type'][] = ['NotSupported', 'Required', 'TooLong', 'TooMany', 'TypeInvalid'];
const NOT_CHECKED: FieldError = {
  type: 'Invalid',
  field: '<nil>',
  detail:
    'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

function withCel(
  errs: FieldError[],
  rules: CustomResourceRules,
  obj: Obj,
  old: Obj | undefined,
  warnings: string[],
): FieldError[] {
  if (!hasCelRules(rules.schema)) return errs;
  if (errs.some((e) => BLOCKING.includes(e.type))) return [...errs, NOT_CHECKED];
  const ratcheted: string[] = [];
  const celErrs = celRuleErrors(obj, old, rules.schema, ratcheted);
  warnings.push(...ratcheted.map(warning));
  return [...errs, ...celErrs];
}

/** customResourceStrategy.Validate (the create path; 18 #11–#62). */
export function validateCreate(obj: Obj, rules: CustomResourceRules, warnings: string[]): FieldError[] {
  const errs = withCel(
    [
      ...objectMetaErrors(obj.metadata, rules.namespaced),
      ...validateOpenApi(obj, rules.schema, ''),
      ...scaleSpecErrors(obj, rules.scale),
      ...scaleStatusErrors(obj, rules.scale),
      ...embeddedResourceErrors(obj, rules.schema),
      ...listTypeErrors(obj, rules.schema),
    ],
    rules,
    obj,
    undefined,
    warnings,
  );
  if (!errs.length) warnings.push(...finalizerWarnings(obj.metadata).map(warning));
  return errs;
}

/**
 * rest.BeforeUpdate's common ObjectMeta checks (the name only as a path segment, and it cannot
 * change), which come before the strategy's own.
 */
function commonUpdateErrors(obj: Obj, old: Obj, rules: CustomResourceRules): FieldError[] {
  return [
    ...objectMetaErrors(obj.metadata, rules.namespaced).filter((e) => e.field !== 'metadata.name'),
    ...objectMetaUpdateErrors(obj.metadata, old.metadata),
  ];
}

/** customResourceStrategy.ValidateUpdate, with ratcheting against the stored object (18 #99). */
export function validateUpdate(
  obj: Obj,
  old: Obj,
  rules: CustomResourceRules,
  warnings: string[],
): FieldError[] {
  const strategyErrs = withCel(
    [
      ...objectMetaUpdateErrors(obj.metadata, old.metadata),
      ...validateOpenApi(obj, rules.schema, '', { value: old }),
      ...scaleSpecErrors(obj, rules.scale),
      ...scaleStatusErrors(obj, rules.scale),
      ...embeddedResourceErrors(obj, rules.schema),
      ...(listTypeErrors(old, rules.schema).length ? [] : listTypeErrors(obj, rules.schema)),
    ],
    rules,
    obj,
    old,
    warnings,
  );
  const errs = [...commonUpdateErrors(obj, old, rules), ...strategyErrs];
  if (!errs.length) warnings.push(...finalizerWarnings(obj.metadata, old.metadata).map(warning));
  return errs;
}

/** statusStrategy.ValidateUpdate: only the status is checked against its schema (05 #13, 18 #88). */
export function validateStatusUpdate(
  obj: Obj,
  old: Obj,
  rules: CustomResourceRules,
  warnings: string[],
): FieldError[] {
  const statusSchema = rules.schema.properties?.status;
  const oldStatus = isPlainObject(old) && 'status' in old ? { value: old.status } : undefined;
  const newLists = listTypeErrors(obj, rules.schema);
  const strategyErrs = withCel(
    [
      ...objectMetaUpdateErrors(obj.metadata, old.metadata),
      ...('status' in obj && statusSchema
        ? validateOpenApi(obj.status, statusSchema, 'status', oldStatus)
        : []),
      ...scaleStatusErrors(obj, rules.scale),
      ...(newLists.length && !listTypeErrors(old, rules.schema).length ? newLists : []),
    ],
    rules,
    obj,
    old,
    warnings,
  );
  return [...commonUpdateErrors(obj, old, rules), ...strategyErrs];
}
