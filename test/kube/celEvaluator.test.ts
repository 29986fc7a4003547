import { CelEvalError, CelSyntaxError, CelUnsupported } from '../support/kube/cel/errors';
import { evaluateCel } from '../support/kube/cel/evaluate';
import { parseCel } from '../support/kube/cel/parse';

/** Evaluates with `self` (and more variables); JSON integers arrive as CEL ints (bigint). */
const run = (expr: string, vars: Record<string, unknown> = {}) => evaluateCel(parseCel(expr), vars);

describe('the emulator’s CEL evaluator (x-kubernetes-validations on custom resources)', () => {
  const spec = { minReplicas: 2n, replicas: 8n, mode: 'Batch', schedule: '0 * * * *' };

  test('the rules of the recorded Widget CRD (18): comparisons, has(), string concatenation', () => {
    expect(run('self.minReplicas <= self.replicas', { self: spec })).toBe(true);
    expect(run('self.minReplicas <= self.replicas', { self: { ...spec, replicas: 1n } })).toBe(false);
    expect(run("self.mode != 'Batch' || has(self.schedule)", { self: spec })).toBe(true);
    const { schedule: _s, ...noSchedule } = spec;
    void _s;
    expect(run("self.mode != 'Batch' || has(self.schedule)", { self: noSchedule })).toBe(false);
    expect(run("'mode ' + self.mode + ' needs a schedule'", { self: spec })).toBe(
      'mode Batch needs a schedule',
    );
    expect(run('self == oldSelf', { self: 'fast', oldSelf: 'slow' })).toBe(false);
  });

  test('the project’s own CRD rules: exactly one of two fields', () => {
    const rule = 'has(self.url) != has(self.urlFrom)';
    expect(run(rule, { self: { url: 'http://x' } })).toBe(true);
    expect(run(rule, { self: { url: 'http://x', urlFrom: {} } })).toBe(false);
    expect(run('!(has(self.value) && has(self.valueFrom))', { self: { value: 'v' } })).toBe(true);
  });

  test('a missing field is cel-go’s `no such key`, and || and && absorb an error on a decisive side', () => {
    expect(() => run('self.schedule == ""', { self: {} })).toThrow(new CelEvalError('no such key: schedule'));
    expect(run('true || self.schedule == ""', { self: {} })).toBe(true);
    expect(run('self.schedule == "" || true', { self: {} })).toBe(true);
    expect(run('self.schedule == "" && false', { self: {} })).toBe(false);
    expect(() => run('self.schedule == "" && true', { self: {} })).toThrow(CelEvalError);
  });

  test('ints are 64-bit and distinct from doubles; arithmetic errors have cel-go’s texts', () => {
    expect(run('9223372036854775807 - 1')).toBe(9223372036854775806n);
    expect(() => run('9223372036854775807 + 1')).toThrow(new CelEvalError('integer overflow'));
    expect(run('7 / 2')).toBe(3n);
    expect(run('7.0 / 2.0')).toBe(3.5);
    expect(() => run('1 / 0')).toThrow(new CelEvalError('division by zero'));
    expect(() => run('1 + 1.0')).toThrow(new CelEvalError('no such overload'));
    expect(run('1 == 1.0')).toBe(true);
    expect(run('2u + 3u')).toEqual(expect.objectContaining({ value: 5n }));
  });

  test('macros, lists, maps and the string functions', () => {
    const ports = [{ port: 80n }, { port: 443n }];
    expect(run('self.all(p, p.port > 0)', { self: ports })).toBe(true);
    expect(run('self.exists(p, p.port == 443)', { self: ports })).toBe(true);
    expect(run('self.exists_one(p, p.port > 100)', { self: ports })).toBe(true);
    expect(run('self.map(p, p.port * 2)', { self: ports })).toEqual([160n, 886n]);
    expect(run('self.filter(p, p.port < 100).size()', { self: ports })).toBe(1n);
    expect(run("'a' in self && !('z' in self)", { self: { a: 'x' } })).toBe(true);
    expect(run("{'k': 1}['k'] + [1, 2][1]")).toBe(3n);
    expect(
      run("self.startsWith('ng') && self.endsWith('27') && self.contains(':')", { self: 'nginx:1.27' }),
    ).toBe(true);
    expect(run("self.matches('^[a-z]+:[0-9.]+$')", { self: 'nginx:1.27' })).toBe(true);
    expect(run('size(self) == 10 && self.size() == 10', { self: 'nginx:1.27' })).toBe(true);
    expect(run('self.x > 1 ? "big" : "small"', { self: { x: 2n } })).toBe('big');
    expect(run('self.__dash__name', { self: { '-name': 'v' } })).toBe('v');
  });

  test('what it cannot judge it refuses, what does not parse is a syntax error', () => {
    expect(() => run("quantity('1Gi').isGreaterThan(quantity('1Mi'))")).toThrow(CelUnsupported);
    expect(() => parseCel('self.a ==')).toThrow(CelSyntaxError);
    expect(() => parseCel('if')).toThrow(CelSyntaxError);
  });
});
