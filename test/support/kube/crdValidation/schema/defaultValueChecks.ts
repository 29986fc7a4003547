/**
 * A default passes the checks a custom resource's value gets: the schema's value validations,
 * then its CEL rules (the default being its own old value, so transition rules hold). Errors carry
 * the default's path (`…properties[options].default.a`) and name the value inside it.
 */
import { celRuleErrors } from '../../customResources/celRules';
import type { FieldError } from '../../errors';
import { validateOpenApi } from '../../customResources/openapiValidation';
import type { Schema } from '../../schema';
import { isPlainObject, type Obj } from '../../types';

/**
 * The server validates a default through the structural schema's OpenAPI form, in which
 * x-kubernetes-int-or-string adds no type of its own (a boolean default passes, 17 #57): only a
 * declared `type` or `anyOf` constrains the default, unlike a custom resource's value.
 */
function withoutIntOrStringType(s: Obj): Obj {
  const { 'x-kubernetes-int-or-string': _flag, ...out } = s;
  void _flag;
  const sub = (x: unknown) => (isPlainObject(x) ? withoutIntOrStringType(x) : x);
  if (isPlainObject(s.properties)) {
    out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, sub(v)]));
  }
  for (const k of ['items', 'additionalProperties', 'not']) if (isPlainObject(s[k])) out[k] = sub(s[k]);
  for (const k of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(s[k])) out[k] = s[k].map(sub);
  return out;
}

export function defaultValueErrors(value: unknown, s: Obj, at: string): FieldError[] {
  return validateOpenApi(value, withoutIntOrStringType(s) as Schema, at);
}

export function defaultRuleErrors(value: unknown, s: Obj, at: string): FieldError[] {
  // Without an old value, transition rules are not run: on a default, self and oldSelf are equal.
  return celRuleErrors(value, undefined, s as Schema, []).map((e) => ({
    ...e,
    field: e.field ? (e.field.startsWith('[') ? `${at}${e.field}` : `${at}.${e.field}`) : at,
  }));
}
