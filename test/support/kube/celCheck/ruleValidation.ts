/**
 * Runs the x-kubernetes-validations rules of a schema and of the schemas under it against a value,
 * with the server's error shapes: `Invalid value: "<schema type>": <message>` (the type, not the
 * value), `Forbidden: <message>` for reason FieldValueForbidden, the rule's fieldPath appended.
 */
import { fieldErr, type FieldError } from '../errors';
import { isPlainObject, type Obj } from '../types';
import { check } from './checker';
import { schemaDeclType } from './declTypes';
import { NotEmulatedCel } from './errors';
import { Interpreter } from './interpreter';
import { parse } from './parser';
import { fromDecl, t } from './types';
import { CelOptional, CelRuntimeError, toCel, type CelValue } from './values';

function ruleText(rule: Obj): string {
  return String(rule.message ?? '').trim() || String(rule.rule ?? '').trim();
}

function failure(path: string, schema: Obj, rule: Obj, message: string): FieldError {
  const at = rule.fieldPath
    ? `${path}${String(rule.fieldPath).startsWith('[') ? '' : '.'}${String(rule.fieldPath).replace(/^\./, '')}`
    : path;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return fieldErr.forbidden(at, message);
    case 'FieldValueRequired':
      return fieldErr.required(at, message);
    case 'FieldValueDuplicate':
      return fieldErr.duplicate(at, JSON.stringify(schema.type ?? ''));
    default:
      return fieldErr.invalid(at, schema.type ?? '', message);
  }
}

function evaluate(
  source: string,
  variables: Record<string, CelValue>,
  types: Record<string, ReturnType<typeof fromDecl>>,
): CelValue {
  const parsed = parse(source);
  if (!parsed.ok) throw new NotEmulatedCel('evaluating a CEL rule that does not compile');
  const checked = check(parsed.expr, types);
  if (checked.issues.length) throw new NotEmulatedCel('evaluating a CEL rule that does not compile');
  return new Interpreter(variables).eval(parsed.expr);
}

function validateNode(
  value: unknown,
  schema: Obj,
  isResourceRoot: boolean,
  old: unknown,
  path: string,
  out: FieldError[],
): void {
  const rules = (schema['x-kubernetes-validations'] ?? []) as Obj[];
  if (rules.length) {
    const decl = schemaDeclType(schema, isResourceRoot);
    if (!decl) throw new NotEmulatedCel('evaluating CEL rules on a schema without a CEL type');
    const self = toCel(value, decl);
    const oldSelf = old === undefined ? undefined : toCel(old, decl);
    for (const rule of rules) {
      const optional = rule.optionalOldSelf === true;
      const variables: Record<string, CelValue> = { self };
      if (optional) variables.oldSelf = new CelOptional(oldSelf ?? undefined);
      else if (oldSelf !== undefined) variables.oldSelf = oldSelf;
      const types = { self: fromDecl(decl), oldSelf: optional ? t.optional(fromDecl(decl)) : fromDecl(decl) };
      try {
        if (evaluate(String(rule.rule), variables, types) === true) continue;
        let message = rule.message ? String(rule.message).trim() : `failed rule: ${ruleText(rule)}`;
        if (rule.messageExpression) {
          const m = evaluate(String(rule.messageExpression), variables, types);
          if (typeof m === 'string' && m.trim() && !/[\n\r]/.test(m)) message = m;
        }
        out.push(failure(path, schema, rule, message));
      } catch (e) {
        if (!(e instanceof CelRuntimeError)) throw e;
        out.push(fieldErr.invalid(path, schema.type ?? '', `${ruleText(rule)}: ${e.message}`));
      }
    }
  }
  if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const prop = (schema.properties ?? {})[k] as Obj | undefined;
      const oldChild = isPlainObject(old) ? old[k] : undefined;
      if (prop)
        validateNode(v, prop, prop['x-kubernetes-embedded-resource'] === true, oldChild, `${path}.${k}`, out);
      else if (isPlainObject(schema.additionalProperties)) {
        const ap = schema.additionalProperties;
        validateNode(v, ap, ap['x-kubernetes-embedded-resource'] === true, oldChild, `${path}[${k}]`, out);
      }
    }
  } else if (Array.isArray(value) && isPlainObject(schema.items)) {
    const items = schema.items;
    value.forEach((v, i) =>
      validateNode(
        v,
        items,
        items['x-kubernetes-embedded-resource'] === true,
        undefined,
        `${path}[${i}]`,
        out,
      ),
    );
  }
}

/** The rules' errors for `value` (and `old`, for transition rules) under `schema`, at `path`. */
export function validateRulesAgainst(
  value: unknown,
  schema: Obj,
  isResourceRoot: boolean,
  old: unknown,
  path: string,
): FieldError[] {
  const out: FieldError[] = [];
  validateNode(value, schema, isResourceRoot, old, path, out);
  return out;
}
