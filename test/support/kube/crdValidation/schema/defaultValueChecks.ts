/**
 * A default passes the checks a custom resource's value gets: the schema's value validations,
 * then its CEL rules (the default being its own old value, so transition rules hold). Errors carry
 * the default's path (`…properties[options].default.a`) and name the value inside it.
 */
import { validateRulesAgainst } from '../../celCheck/ruleValidation';
import { validateOpenApi } from '../../customResources/openapiValidation';
import type { FieldError } from '../../errors';
import type { Schema } from '../../schema';
import type { Obj } from '../../types';

/**
 * Defaults are validated through the structural schema's OpenAPI form, which keeps no type for
 * x-kubernetes-int-or-string: any default passes there (17 #57), unlike a custom resource's value.
 */
function untypedIntOrString(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(untypedIntOrString);
  if (!s || typeof s !== 'object') return s;
  const out: Obj = {};
  for (const [k, v] of Object.entries(s as Obj)) {
    if (k === 'default' || k === 'example' || k === 'enum') out[k] = v;
    else out[k] = untypedIntOrString(v);
  }
  // The flag gives a custom resource's value the type integer-or-string; a default keeps only what
  // the schema itself declares (its type, its anyOf).
  delete out['x-kubernetes-int-or-string'];
  return out;
}

export function defaultValueErrors(value: unknown, s: Obj, at: string): FieldError[] {
  return validateOpenApi(value, untypedIntOrString(s) as Schema, at);
}

export function defaultRuleErrors(value: unknown, s: Obj, isResource: boolean, at: string): FieldError[] {
  return validateRulesAgainst(value, s, isResource, value, at);
}
