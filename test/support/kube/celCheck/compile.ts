/**
 * Compiles one x-kubernetes-validations rule as the API server does when a CRD is written: the
 * rule must parse, type-check against `self` (and `oldSelf`) and yield a bool; a messageExpression
 * must yield a string; both get a static cost estimate.
 */
import { check, type Checked } from './checker';
import { estimateCost } from './cost';
import type { DeclType } from './declTypes';
import { formatIssues } from './errors';
import { parse } from './parser';
import { fromDecl, t, type CelType } from './types';

export interface CompilationResult {
  error?: { type: 'invalid' | 'required'; detail: string };
  messageExpressionError?: { detail: string };
  /** The rule reads oldSelf: a transition rule. */
  usesOldSelf: boolean;
  maxCost: number;
  /** How often the rule could run if no bound above it limited it. */
  maxCardinality: number;
  messageExpressionMaxCost?: number;
}

type Compiled = { ok: true; checked: Checked; output: CelType } | { ok: false; detail: string };

function compileExpression(source: string, variables: Record<string, CelType>): Compiled {
  const parsed = parse(source);
  if (!parsed.ok) return { ok: false, detail: formatIssues(source, parsed.issues) };
  const checked = check(parsed.expr, variables);
  if (checked.issues.length) return { ok: false, detail: formatIssues(source, checked.issues) };
  return { ok: true, checked, output: checked.types.get(parsed.expr.id)! };
}

export function compileRule(
  rule: Record<string, unknown>,
  declType: DeclType | undefined,
  maxCardinality: number,
): CompilationResult {
  const result: CompilationResult = { usesOldSelf: false, maxCost: 0, maxCardinality };
  const source = String(rule.rule ?? '');
  if (!source.trim()) return result;
  if (!declType) {
    result.error = {
      type: 'invalid',
      detail: 'internal error: failed to retrieve type information for x-kubernetes-validations',
    };
    return result;
  }
  const self = fromDecl(declType);
  const variables = { self, oldSelf: rule.optionalOldSelf === true ? t.optional(self) : self };
  const compiled = compileExpression(source, variables);
  if (!compiled.ok) {
    result.error = { type: 'invalid', detail: `compilation failed: ${compiled.detail}` };
    return result;
  }
  if (compiled.output.kind !== 'bool') {
    result.error = { type: 'invalid', detail: 'cel expression must evaluate to a bool' };
    return result;
  }
  result.usesOldSelf = compiled.checked.references.has('oldSelf');
  result.maxCost = estimateCost(compiled.checked, declType).max;
  const messageExpression = String(rule.messageExpression ?? '');
  if (messageExpression) {
    const message = compileExpression(messageExpression, variables);
    if (!message.ok) {
      result.messageExpressionError = { detail: `messageExpression compilation failed: ${message.detail}` };
    } else if (message.output.kind !== 'string') {
      result.messageExpressionError = { detail: 'messageExpression must evaluate to a string' };
    } else {
      result.messageExpressionMaxCost = estimateCost(message.checked, declType).max;
    }
  }
  return result;
}
