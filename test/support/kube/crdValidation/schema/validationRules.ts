/**
 * x-kubernetes-validations of one schema node: the rule's own fields (message, reason, fieldPath)
 * first, then, when nothing under this node is wrong with the schema, the CEL compilation: syntax
 * and type errors, the result types, the estimated cost against the per-expression budget, and
 * oldSelf where the old value cannot be correlated.
 */
import { compileRule } from '../../celCheck/compile';
import { fieldErr, type FieldError } from '../../errors';
import type { Obj } from '../../types';
import { goBadValue, goValidationRule } from '../goSyntax';
import { costErrorMessage, PER_EXPRESSION_COST_LIMIT, type CelSchemaContext } from './celContext';
import type { Errors, WalkState } from './openApiRules';
import { child, index } from './paths';
import { fieldPathTarget } from './ruleFieldPath';

const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const hasNewlines = (s: string) => /[\n\r]/.test(s);

function staticErrors(s: Obj, rule: Obj, at: string, out: FieldError[]): void {
  const ruleText = String(rule.rule ?? '');
  const message = String(rule.message ?? '');
  const trimmedMessage = message.trim();
  if (!ruleText.trim()) {
    out.push(fieldErr.required(child(at, 'rule'), 'rule is not specified'));
  } else if (message && !trimmedMessage) {
    out.push(fieldErr.invalid(child(at, 'message'), message, 'message must be non-empty if specified'));
  } else if (hasNewlines(trimmedMessage)) {
    out.push(
      fieldErr.invalidRaw(child(at, 'message'), goBadValue(message), 'message must not contain line breaks'),
    );
  } else if (hasNewlines(ruleText.trim()) && !trimmedMessage) {
    out.push(
      fieldErr.required(child(at, 'message'), 'message must be specified if rule contains line breaks'),
    );
  }
  if (rule.messageExpression && !String(rule.messageExpression).trim()) {
    out.push(
      fieldErr.required(child(at, 'messageExpression'), 'messageExpression must be non-empty if specified'),
    );
  }
  if (rule.reason !== undefined && !REASONS.includes(rule.reason)) {
    out.push(fieldErr.notSupported(child(at, 'reason'), rule.reason, REASONS));
  }
  const fieldPath = String(rule.fieldPath ?? '');
  if (fieldPath && !fieldPath.trim()) {
    out.push(fieldErr.invalid(child(at, 'fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
  }
  if (hasNewlines(fieldPath))
    out.push(fieldErr.invalid(child(at, 'fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
  if (fieldPath && fieldPathTarget(s, fieldPath) === undefined) {
    out.push(fieldErr.invalid(child(at, 'fieldPath'), fieldPath, 'fieldPath must be a valid path'));
  }
}

export function validateRules(
  s: Obj,
  path: string,
  st: WalkState,
  cel: CelSchemaContext | undefined,
  errs: Errors,
): void {
  const rules = s['x-kubernetes-validations'] as Obj[];
  const base = child(path, 'x-kubernetes-validations');
  rules.forEach((rule, i) => staticErrors(s, rule, index(base, i), errs.schema));
  if (errs.schema.length > 0 || !cel) return;
  rules.forEach((rule, i) => {
    const at = index(base, i);
    const result = compileRule(rule, cel.declType(), cel.ownCardinality());
    const cost = cel.expressionCost(result);
    if (cost > PER_EXPRESSION_COST_LIMIT && !cel.suppressPerExpressionCost) {
      errs.cel.push(
        fieldErr.forbidden(
          child(at, 'rule'),
          costErrorMessage('estimated rule cost', cost, PER_EXPRESSION_COST_LIMIT),
        ),
      );
    }
    cel.total.observe(child(at, 'rule'), cost);
    if (result.error) {
      if (result.error.type === 'required')
        errs.cel.push(fieldErr.required(child(at, 'rule'), result.error.detail));
      else errs.cel.push(fieldErr.invalidRaw(child(at, 'rule'), goValidationRule(rule), result.error.detail));
    }
    if (result.messageExpressionError) {
      errs.cel.push(
        fieldErr.invalidRaw(
          child(at, 'messageExpression'),
          goValidationRule(rule),
          result.messageExpressionError.detail,
        ),
      );
    } else if (result.messageExpressionMaxCost !== undefined) {
      if (result.messageExpressionMaxCost > PER_EXPRESSION_COST_LIMIT && !cel.suppressPerExpressionCost) {
        errs.cel.push(
          fieldErr.forbidden(
            child(at, 'messageExpression'),
            costErrorMessage(
              'estimated messageExpression cost',
              result.messageExpressionMaxCost,
              PER_EXPRESSION_COST_LIMIT,
            ),
          ),
        );
      }
      cel.total.observe(child(at, 'messageExpression'), result.messageExpressionMaxCost);
    }
    if (result.usesOldSelf) {
      if (st.uncorrelatable) {
        errs.cel.push(
          fieldErr.invalid(
            child(at, 'rule'),
            rule.rule,
            `oldSelf cannot be used on the uncorrelatable portion of the schema within ${st.uncorrelatable}`,
          ),
        );
      }
    } else if (rule.optionalOldSelf !== undefined) {
      errs.cel.push(
        fieldErr.invalidRaw(
          child(at, 'optionalOldSelf'),
          String(rule.optionalOldSelf),
          'may not be set if oldSelf is not used in rule',
        ),
      );
    }
  });
}
