import { compileRule } from '../support/kube/celCheck/compile';
import { schemaDeclType } from '../support/kube/celCheck/declTypes';
import { NotEmulatedCel } from '../support/kube/celCheck/errors';

/**
 * The CEL checks the API server runs when a CRD is written (celCheck/): the texts are cel-go's, as
 * the 17-crd-validation transcript recorded them; the costs follow cel-go's estimator.
 */

const spec = {
  type: 'object',
  properties: { size: { type: 'integer' }, min: { type: 'integer' }, name: { type: 'string' } },
};

const compileOn = (schema: object, rule: Record<string, unknown>) =>
  compileRule(rule, schemaDeclType(schema, false), 1);

describe('CEL rules as a CRD write compiles them', () => {
  it('reports a missing operand at the end in ANTLR words, with the caret under the end', () => {
    expect(compileOn(spec, { rule: 'self.min <= ' }).error?.detail).toBe(
      "compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.min <= \n | ............^",
    );
  });

  it('refuses to guess ANTLR messages for other syntax errors', () => {
    expect(() => compileOn(spec, { rule: 'self.min <= )' })).toThrow(NotEmulatedCel);
    expect(() => compileOn(spec, { rule: 'self.min <= -' })).toThrow(NotEmulatedCel);
    expect(() => compileOn(spec, { rule: '[self.min,' })).toThrow(NotEmulatedCel);
  });

  it('names a field the schema does not declare at its dot, and has() at its parenthesis', () => {
    expect(compileOn(spec, { rule: 'self.max > 0' }).error?.detail).toBe(
      "compilation failed: ERROR: <input>:1:5: undefined field 'max'\n | self.max > 0\n | ....^",
    );
    expect(compileOn(spec, { rule: 'has(self.a) || self.min > 0' }).error?.detail).toBe(
      "compilation failed: ERROR: <input>:1:4: undefined field 'a'\n | has(self.a) || self.min > 0\n | ...^",
    );
  });

  it('sees only name and generateName under a resource root metadata', () => {
    const root = schemaDeclType({ type: 'object', properties: {} }, true);
    expect(compileRule({ rule: 'self.metadata.name.startsWith("g")' }, root, 1).error).toBeUndefined();
    expect(compileRule({ rule: "'app' in self.metadata.labels" }, root, 1).error?.detail).toMatch(
      /^compilation failed: ERROR: <input>:1:23: undefined field 'labels'/,
    );
  });

  it('requires a bool rule and a string messageExpression', () => {
    expect(compileOn(spec, { rule: 'self.size' }).error?.detail).toBe(
      'cel expression must evaluate to a bool',
    );
    expect(
      compileOn(spec, { rule: 'self.min <= self.size', messageExpression: 'self.size' })
        .messageExpressionError?.detail,
    ).toBe('messageExpression must evaluate to a string');
  });

  it('knows transition rules and int-or-string values', () => {
    expect(compileOn(spec, { rule: 'self.size == oldSelf.size' }).usesOldSelf).toBe(true);
    expect(compileOn(spec, { rule: 'self.size > 0' }).usesOldSelf).toBe(false);
    expect(
      compileOn(
        { 'x-kubernetes-int-or-string': true },
        { rule: 'type(self) == int ? self > 0 : self.size() > 0' },
      ).error,
    ).toBeUndefined();
    expect(
      compileOn({ type: 'integer' }, { rule: 'self >= oldSelf.orValue(0)', optionalOldSelf: true }).error,
    ).toBeUndefined();
  });

  it('estimates a regex over every item of an unbounded list far beyond the budget, and a bounded one within', () => {
    const rule = { rule: "self.all(x, x.matches('^[a-z]+$'))" };
    const unbounded = compileOn({ type: 'array', items: { type: 'string' } }, rule);
    const bounded = compileOn(
      { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 63 } },
      rule,
    );
    expect(unbounded.maxCost).toBeGreaterThan(100 * 10_000_000);
    // 10 items × (loop 2 + step: 1 + x 1 + (252+1)×0.1 rounded up 26 × (8×0.25 = 2)) + 1 + 1
    expect(bounded.maxCost).toBe(10 * (2 + 1 + 1 + 26 * 2) + 2);
  });

  it('estimates string(int) as of unknown size, so concatenating it costs beyond any budget', () => {
    const message = (expr: string) =>
      compileOn(spec, { rule: 'self.min <= self.size', messageExpression: expr });
    expect(message("'size ' + string(self.size)").messageExpressionMaxCost).toBeGreaterThan(100 * 10_000_000);
    expect(message("'gadget ' + self.name").messageExpressionMaxCost).toBeLessThan(10_000_000);
  });

  it('refuses functions it does not know rather than calling them undeclared', () => {
    expect(() => compileOn(spec, { rule: "url(self.name).getScheme() == 'https'" })).toThrow(NotEmulatedCel);
  });
});
