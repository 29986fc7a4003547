import type { CelNode } from '../cel/ast';
import { CelEvalError, CelSyntaxError, CelUnsupported } from '../cel/errors';
import { CelOpaque, evaluateCel } from '../cel/evaluate';
import { parseCel } from '../cel/parse';
import { fieldErr, notEmulated, type FieldError } from '../errors';
import type { Schema, ValidationRule } from '../schema';
import { deepEqual, isPlainObject } from '../types';

/** Whether the schema has any x-kubernetes-validations (the server builds no CEL validator otherwise). */
export function hasCelRules(s: Schema | undefined): boolean {
  if (!s) return false;
  if (s['x-kubernetes-validations']?.length) return true;
  if (Object.values(s.properties ?? {}).some(hasCelRules)) return true;
  if (isPlainObject(s.additionalProperties) && hasCelRules(s.additionalProperties as Schema)) return true;
  return hasCelRules(s.items);
}

const parsed = new Map<string, CelNode>();

function compile(expr: string): CelNode {
  let node = parsed.get(expr);
  if (!node) {
    try {
      node = parseCel(expr);
    } catch (e) {
      // The CRD was accepted, so the server compiled it: a parse failure is this evaluator's gap.
      if (e instanceof CelSyntaxError)
        throw notEmulated(`CEL expression ${JSON.stringify(expr)}: ${e.message}`);
      throw e;
    }
    parsed.set(expr, node);
  }
  return node;
}

function mentions(node: CelNode, name: string): boolean {
  switch (node.kind) {
    case 'ident':
      return node.name === name;
    case 'literal':
      return false;
    case 'select':
      return mentions(node.operand, name);
    case 'index':
      return mentions(node.operand, name) || mentions(node.index, name);
    case 'call':
      return (node.target ? mentions(node.target, name) : false) || node.args.some((a) => mentions(a, name));
    case 'list':
      return node.items.some((i) => mentions(i, name));
    case 'map':
      return node.entries.some((e) => mentions(e.key, name) || mentions(e.value, name));
    case 'unary':
      return mentions(node.operand, name);
    case 'binary':
      return mentions(node.left, name) || mentions(node.right, name);
    case 'conditional':
      return mentions(node.test, name) || mentions(node.then, name) || mentions(node.otherwise, name);
  }
}

/** A JSON value as CEL sees it under its schema: integers are int, numbers double (k8s cel/common). */
function toCel(v: unknown, s: Schema | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') {
    if (s?.type === 'number') return v;
    return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (typeof v === 'string') {
    if (s?.format === 'date-time' || s?.format === 'date')
      return new CelOpaque('google.protobuf.Timestamp', v);
    if (s?.format === 'duration') return new CelOpaque('google.protobuf.Duration', v);
    if (s?.format === 'byte') return new CelOpaque('bytes', v);
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => toCel(x, s?.items));
  if (isPlainObject(v)) {
    const additional = isPlainObject(s?.additionalProperties)
      ? (s!.additionalProperties as Schema)
      : undefined;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, toCel(x, s?.properties?.[k] ?? additional)]),
    );
  }
  return v;
}

type Old = { value: unknown } | undefined;

function child(path: string, k: string): string {
  return path ? `${path}.${k}` : k;
}

function ruleText(rule: ValidationRule): string {
  return (rule.message ?? '').trim() || rule.rule.trim();
}

function ruleMessage(rule: ValidationRule): string {
  const m = (rule.message ?? '').trim();
  return m || `failed rule: ${rule.rule.trim()}`;
}

/** fieldErrorForReason: the rule's reason picks the error type; the value shown is the schema type. */
function ruleError(path: string, type: string, detail: string, reason: ValidationRule['reason']): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return fieldErr.forbidden(path, detail);
    case 'FieldValueRequired':
      return fieldErr.required(path, detail);
    case 'FieldValueDuplicate':
      return fieldErr.duplicate(path, JSON.stringify(type));
    default:
      return fieldErr.invalid(path, type, detail);
  }
}

/**
 * The apiextensions CEL validator: each node's rules with `self` (and `oldSelf` for transition
 * rules, which need a correlated stored value), then its children. With ratcheting, a failing rule
 * without oldSelf on a value equal to the stored one becomes a warning.
 */
export function celRuleErrors(obj: unknown, old: unknown, schema: Schema, warnings: string[]): FieldError[] {
  return validateNode(obj, old === undefined ? undefined : { value: old }, schema, '', warnings);
}

function validateNode(
  x: unknown,
  old: Old,
  s: Schema | undefined,
  path: string,
  warnings: string[],
): FieldError[] {
  if (!s || x === undefined) return [];
  const errs = nodeRules(x, old, s, path, warnings);
  if (Array.isArray(x)) {
    const olds = correlatedItems(x, s, old);
    x.forEach((v, i) => errs.push(...validateNode(v, olds[i], s.items, `${path}[${i}]`, warnings)));
  } else if (isPlainObject(x)) {
    const oldMap = old && isPlainObject(old.value) ? old.value : undefined;
    const additional = isPlainObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
    for (const [k, v] of Object.entries(x)) {
      const sub = s.properties?.[k] ?? additional;
      const o: Old = oldMap && k in oldMap ? { value: oldMap[k] } : undefined;
      errs.push(...validateNode(v, o, sub, child(path, k), warnings));
    }
  }
  return errs;
}

function correlatedItems(x: unknown[], s: Schema, old: Old): Old[] {
  const keys = s['x-kubernetes-list-map-keys'];
  if (!old || !Array.isArray(old.value) || s['x-kubernetes-list-type'] !== 'map' || !keys) return [];
  const oldItems = old.value;
  return x.map((v) => {
    if (!isPlainObject(v)) return undefined;
    const m = oldItems.find((o) => isPlainObject(o) && keys.every((k) => deepEqual(o[k], v[k])));
    return m === undefined ? undefined : { value: m };
  });
}

function nodeRules(x: unknown, old: Old, s: Schema, path: string, warnings: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const type = s.type ?? '';
  const ratchet = old !== undefined && deepEqual(x, old.value);
  for (const rule of s['x-kubernetes-validations'] ?? []) {
    const program = compile(rule.rule);
    const usesOldSelf = mentions(program, 'oldSelf');
    if (usesOldSelf && rule.optionalOldSelf) throw notEmulated('CEL rules with optionalOldSelf');
    if (usesOldSelf && !old) continue;
    const add = (e: FieldError) => {
      if (!usesOldSelf && ratchet) warnings.push(`${e.field}: ${e.detail}`);
      else errs.push(e);
    };
    const vars: Record<string, unknown> = { self: toCel(x, s) };
    if (usesOldSelf) vars.oldSelf = toCel(old!.value, s);
    let result: unknown;
    try {
      result = evaluateCel(program, vars);
    } catch (e) {
      if (e instanceof CelUnsupported) throw notEmulated(`${e.message} (rule ${JSON.stringify(rule.rule)})`);
      if (!(e instanceof CelEvalError)) throw e;
      const text = e.message.startsWith('no such overload')
        ? `'${e.message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(rule)}`
        : `${e.message} evaluating rule: ${ruleText(rule)}`;
      add(fieldErr.invalid(path, type, text));
      continue;
    }
    if (result === true) continue;
    const at = rule.fieldPath ? child(path, rule.fieldPath.replace(/^\./, '')) : path;
    add(ruleError(at, type, messageOf(rule, vars), rule.reason));
  }
  return errs;
}

/** messageExpression's string, or the rule's message when it fails or says nothing. */
function messageOf(rule: ValidationRule, vars: Record<string, unknown>): string {
  if (rule.messageExpression) {
    try {
      const m = evaluateCel(compile(rule.messageExpression), vars);
      if (typeof m === 'string' && m.trim() !== '') return m;
    } catch (e) {
      if (e instanceof CelUnsupported) throw notEmulated(`${e.message} (messageExpression)`);
      if (!(e instanceof CelEvalError)) throw e;
    }
  }
  return ruleMessage(rule);
}
