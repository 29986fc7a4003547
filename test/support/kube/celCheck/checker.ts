/**
 * Type-checks a parsed expression against the declared variables (self, oldSelf) as cel-go's
 * checker does: fields the schema does not declare (`undefined field 'max'`, 17 #76, #93, #94),
 * unknown identifiers, calls no overload accepts. It records each node's type and the overloads
 * each call resolved to, which cost estimation needs.
 */
import type { Expr } from './ast';
import { NotEmulatedCel, type Issue } from './errors';
import { overloadsOf, TYPE_IDENTIFIERS, type Overload } from './functions';
import { fromDecl, sameType, t, typeName, type CelType } from './types';

export interface Checked {
  expr: Expr;
  types: Map<number, CelType>;
  overloads: Map<number, string[]>;
  issues: Issue[];
  /** The variables the expression reads (oldSelf makes a rule a transition rule). */
  references: Set<string>;
}

/** Namespaces whose functions are called as `namespace.fn(…)`. */
const NAMESPACES = new Set(['optional', 'math', 'sets', 'strings', 'base64', 'cel', 'semver', 'quantity']);

type Bindings = Map<string, CelType>;

function resolve(ty: CelType, b: Bindings): CelType {
  switch (ty.kind) {
    case 'param':
      return b.get(ty.name) ?? t.dyn;
    case 'list':
      return t.list(resolve(ty.elem, b));
    case 'map':
      return t.map(resolve(ty.key, b), resolve(ty.value, b));
    case 'type':
      return t.type(resolve(ty.of, b));
    case 'optional':
      return t.optional(resolve(ty.elem, b));
    default:
      return ty;
  }
}

/** Whether a value of type `arg` may be passed where `param` is expected (binding type params). */
function assignable(param: CelType, arg: CelType, b: Bindings): boolean {
  if (param.kind === 'param') {
    const bound = b.get(param.name);
    if (!bound || bound.kind === 'dyn') {
      b.set(param.name, bound?.kind === 'dyn' && arg.kind !== 'dyn' ? bound : arg);
      return true;
    }
    return assignable(bound, arg, b);
  }
  if (arg.kind === 'dyn' || param.kind === 'dyn') return true;
  if (arg.kind === 'null') return ['null', 'object', 'optional'].includes(param.kind);
  if (param.kind !== arg.kind) return false;
  switch (param.kind) {
    case 'list':
      return assignable(param.elem, (arg as typeof param).elem, b);
    case 'map':
      return (
        assignable(param.key, (arg as typeof param).key, b) &&
        assignable(param.value, (arg as typeof param).value, b)
      );
    case 'type':
      return assignable(param.of, (arg as typeof param).of, b);
    case 'optional':
      return assignable(param.elem, (arg as typeof param).elem, b);
    case 'object':
      return param.decl === (arg as typeof param).decl;
    default:
      return true;
  }
}

/** The type of several alternatives: their common type, or dyn. */
function join(types: CelType[]): CelType {
  if (types.length === 0) return t.dyn;
  return types.every((x) => sameType(x, types[0]!)) ? types[0]! : t.dyn;
}

export function check(expr: Expr, variables: Record<string, CelType>): Checked {
  const types = new Map<number, CelType>();
  const overloads = new Map<number, string[]>();
  const issues: Issue[] = [];
  const references = new Set<string>();
  const scopes: Map<string, CelType>[] = [];

  const issue = (offset: number, message: string): CelType => {
    issues.push({ offset, message });
    return t.dyn;
  };
  const lookup = (name: string): CelType | undefined => {
    for (let i = scopes.length - 1; i >= 0; i--) {
      const v = scopes[i]!.get(name);
      if (v) return v;
    }
    if (variables[name]) {
      references.add(name);
      return variables[name];
    }
    const typeIdent = TYPE_IDENTIFIERS[name];
    return typeIdent ? t.type(typeIdent) : undefined;
  };

  const field = (operand: CelType, name: string, offset: number): CelType => {
    switch (operand.kind) {
      case 'object': {
        const f = operand.decl.fields?.get(name);
        return f ? fromDecl(f) : issue(offset, `undefined field '${name}'`);
      }
      case 'map':
        return operand.value;
      case 'dyn':
        return t.dyn;
      default:
        return issue(offset, `type '${typeName(operand)}' does not support field selection`);
    }
  };

  const call = (
    e: Expr & { kind: 'call' },
    fn: string,
    target: CelType | undefined,
    args: CelType[],
  ): CelType => {
    const candidates = overloadsOf(fn);
    if (!candidates) {
      if (target === undefined && !fn.includes('.')) {
        throw new NotEmulatedCel(
          `the CEL function ${fn}() (unknown to the emulator, perhaps not to the server)`,
        );
      }
      throw new NotEmulatedCel(`the CEL function ${fn}()`);
    }
    const actual = target ? [target, ...args] : args;
    const matched: { o: Overload; result: CelType }[] = [];
    for (const o of candidates) {
      if (o.member !== Boolean(target) || o.params.length !== actual.length) continue;
      const b: Bindings = new Map();
      if (o.params.every((p, i) => assignable(p, actual[i]!, b)))
        matched.push({ o, result: resolve(o.result, b) });
    }
    if (matched.length === 0) {
      const shown = `(${args.map(typeName).join(', ')})`;
      return issue(
        e.offset,
        `found no matching overload for '${fn}' applied to '${target ? `${typeName(target)}.${shown}` : shown}'`,
      );
    }
    overloads.set(
      e.id,
      matched.map((m) => m.o.id),
    );
    return join(matched.map((m) => m.result));
  };

  const visit = (e: Expr): CelType => {
    const ty = visitNode(e);
    types.set(e.id, ty);
    return ty;
  };

  const visitNode = (e: Expr): CelType => {
    switch (e.kind) {
      case 'literal':
        return { kind: e.type } as CelType;
      case 'ident': {
        const v = lookup(e.name);
        return v ?? issue(e.offset, `undeclared reference to '${e.name}' (in container '')`);
      }
      case 'select': {
        const operand = visit(e.operand);
        const ty = field(operand, e.field, e.offset);
        return e.testOnly ? t.bool : ty;
      }
      case 'list': {
        const elems = e.elements.map(visit);
        return t.list(elems.length ? join(elems) : t.dyn);
      }
      case 'map': {
        const keys = e.entries.map((x) => visit(x.key));
        const values = e.entries.map((x) => visit(x.value));
        return t.map(keys.length ? join(keys) : t.dyn, values.length ? join(values) : t.dyn);
      }
      case 'call': {
        if (e.target?.kind === 'ident' && NAMESPACES.has(e.target.name) && !lookup(e.target.name)) {
          return call(e, `${e.target.name}.${e.fn}`, undefined, e.args.map(visit));
        }
        const target = e.target ? visit(e.target) : undefined;
        return call(e, e.fn, target, e.args.map(visit));
      }
      case 'comprehension': {
        const range = visit(e.iterRange);
        let iterType: CelType;
        if (range.kind === 'list') iterType = range.elem;
        else if (range.kind === 'map') iterType = range.key;
        else if (range.kind === 'dyn') iterType = t.dyn;
        else {
          iterType = issue(
            e.iterRange.offset,
            `expression of type '${typeName(range)}' cannot be the range of a comprehension (must be list, map, or dynamic)`,
          );
        }
        let accuType = visit(e.accuInit);
        scopes.push(new Map([[e.accuVar, accuType]]));
        scopes.push(new Map([[e.iterVar, iterType]]));
        visit(e.loopCondition);
        const step = visit(e.loopStep);
        // An accumulator that starts as [] takes the type the step gives it (map, filter).
        if (accuType.kind === 'list' && accuType.elem.kind === 'dyn' && step.kind === 'list') accuType = step;
        scopes.pop();
        scopes[scopes.length - 1]!.set(e.accuVar, accuType);
        const result = visit(e.result);
        scopes.pop();
        return result;
      }
    }
  };

  visit(expr);
  return { expr, types, overloads, issues, references };
}
