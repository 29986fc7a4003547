/**
 * A default passes the checks a custom resource's value gets: the schema's value validations,
 * then its CEL rules (the default being its own old value, so transition rules hold). Errors carry
 * the default's path (`…properties[options].default.a`) and name the value inside it.
 */
import { validateRulesAgainst } from '../../celCheck/ruleValidation';
import type { FieldError } from '../../errors';
import { validateSchema, type Schema } from '../../schema';
import type { Obj } from '../../types';

export function defaultValueErrors(value: unknown, s: Obj, at: string): FieldError[] {
  return validateSchema(value, s as Schema, '').map((e) => ({
    ...e,
    field: e.field ? (e.field.startsWith('[') ? `${at}${e.field}` : `${at}.${e.field}`) : at,
  }));
}

export function defaultRuleErrors(value: unknown, s: Obj, isResource: boolean, at: string): FieldError[] {
  return validateRulesAgainst(value, s, isResource, value, at);
}
