/**
 * The static cost estimate of a checked expression, by cel-go's model and the Kubernetes cost
 * estimator: identifiers and field reads cost 1, string work 0.1 per character, a regex match
 * (string length × pattern length / 4), a comprehension its step times the size of its range.
 * Sizes of values read from `self` come from the schema (maxLength × 4, maxItems …) or, unbounded,
 * from how many fit into a 3 MiB request: that is what makes `.all(x, x.matches(…))` over an
 * unbounded list too expensive (17 #78) and `string(int)` unbounded (17 #81).
 */
import type { Comprehension, Expr } from './ast';
import { ACCUMULATOR } from './ast';
import type { Checked } from './checker';
import { MAX_UINT64, range, type Range } from './costMath';
import type { DeclType } from './declTypes';
import { NotEmulatedCel } from './errors';
import type { CelType } from './types';

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;

interface Node {
  expr: Expr;
  type: CelType;
  /** Variable and field path (`self`, `spec`, `@items` …), when the value comes from one. */
  path?: string[];
}

function isScalar(ty: CelType | undefined): boolean {
  return ty !== undefined && ['bool', 'double', 'duration', 'int', 'timestamp', 'uint'].includes(ty.kind);
}

/** The size a literal or an inline list or map has. */
function literalSize(e: Expr): Range | undefined {
  if (e.kind === 'literal') {
    if (e.type === 'string') return range.fixed([...(e.value as string)].length);
    if (e.type === 'bytes') return range.fixed((e.value as Uint8Array).length);
    return range.fixed(1);
  }
  if (e.kind === 'list') return range.fixed(e.elements.length);
  if (e.kind === 'map') return range.fixed(e.entries.length);
  return undefined;
}

class Coster {
  private readonly paths = new Map<number, string[]>();
  private readonly sizes = new Map<number, Range>();
  private readonly iterRanges = new Map<string, Expr[]>();

  constructor(
    private readonly checked: Checked,
    /** The declared type of `self`: sizes of what is read from it. */
    private readonly root: DeclType,
  ) {}

  private typeOf(e: Expr): CelType {
    return this.checked.types.get(e.id) ?? { kind: 'dyn' };
  }

  private node(e: Expr): Node {
    const path = this.paths.get(e.id);
    return { expr: e, type: this.typeOf(e), path: path && path[0] !== ACCUMULATOR ? path : undefined };
  }

  /** The Kubernetes size estimator: follows the path through the declared types. */
  private estimateSize(n: Node): Range | undefined {
    if (!n.path || n.path.length === 0) return undefined;
    let current: DeclType | undefined = this.root;
    for (const step of n.path.slice(1)) {
      if (step === '@items' || step === '@values') current = current.elem;
      else if (step === '@keys') current = current.key;
      else current = current.fields?.get(step);
      if (!current) return undefined;
    }
    return { min: 0, max: current.maxElements };
  }

  private size(n: Node): Range {
    const computed = literalSize(n.expr) ?? this.sizes.get(n.expr.id);
    if (computed) return computed;
    const estimated = this.estimateSize(n);
    if (estimated) return estimated;
    if (isScalar(n.type)) return range.fixed(1);
    return range.unknown();
  }

  cost(e: Expr): Range {
    switch (e.kind) {
      case 'literal':
        return range.fixed(0);
      case 'ident': {
        const iter = this.iterRanges.get(e.name)?.at(-1);
        if (iter) {
          const kind = this.typeOf(iter).kind;
          const base = this.paths.get(iter.id) ?? [];
          if (kind === 'list') this.paths.set(e.id, [...base, '@items']);
          else if (kind === 'map') this.paths.set(e.id, [...base, '@keys']);
        } else {
          this.paths.set(e.id, [e.name]);
        }
        return range.fixed(1);
      }
      case 'select': {
        if (e.testOnly) return range.add(range.fixed(1), this.cost(e.operand));
        let sum = this.cost(e.operand);
        if (['map', 'object', 'param'].includes(this.typeOf(e.operand).kind))
          sum = range.add(sum, range.fixed(1));
        this.paths.set(e.id, [...(this.paths.get(e.operand.id) ?? []), e.field]);
        return sum;
      }
      case 'list':
        return e.elements.reduce((sum, x) => range.add(sum, this.cost(x)), range.fixed(10));
      case 'map':
        return e.entries.reduce(
          (sum, x) => range.add(range.add(sum, this.cost(x.key)), this.cost(x.value)),
          range.fixed(30),
        );
      case 'comprehension':
        return this.comprehension(e);
      case 'call':
        return this.call(e);
    }
  }

  private comprehension(e: Comprehension): Range {
    let sum = range.add(this.cost(e.iterRange), this.cost(e.accuInit));
    const stack = this.iterRanges.get(e.iterVar) ?? [];
    stack.push(e.iterRange);
    this.iterRanges.set(e.iterVar, stack);
    const loop = this.cost(e.loopCondition);
    const step = this.cost(e.loopStep);
    stack.pop();
    sum = range.add(sum, this.cost(e.result));
    const count = this.size(this.node(e.iterRange));
    this.sizes.set(e.id, count);
    return range.add(sum, range.multiply(count, range.add(step, loop)));
  }

  private call(e: Expr & { kind: 'call' }): Range {
    const argCosts = e.args.map((a) => this.cost(a));
    const args = e.args.map((a) => this.node(a));
    const ids = this.checked.overloads.get(e.id) ?? [];
    if (ids.length === 0) return range.fixed(0);
    let sum = range.fixed(0);
    let target: Node | undefined;
    if (e.target && !this.isNamespace(e)) {
      sum = this.cost(e.target);
      target = this.node(e.target);
    }
    let fnCost: Range = { min: MAX_UINT64, max: 0 };
    let resultSize: Range | undefined;
    for (const id of ids) {
      const est = this.functionCost(e.fn, id, target, args, argCosts);
      fnCost = range.union(fnCost, est.cost);
      if (est.resultSize) resultSize = resultSize ? range.union(resultSize, est.resultSize) : est.resultSize;
      if ((id === 'index_list' || id === 'index_map') && e.args[0]) {
        this.paths.set(e.id, [
          ...(this.paths.get(e.args[0].id) ?? []),
          id === 'index_list' ? '@items' : '@values',
        ]);
      }
    }
    if (resultSize) this.sizes.set(e.id, resultSize);
    return range.add(sum, fnCost);
  }

  private isNamespace(e: Expr & { kind: 'call' }): boolean {
    return e.fn.includes('.') || (e.target?.kind === 'ident' && !this.checked.types.has(e.target.id));
  }

  private functionCost(
    fn: string,
    id: string,
    target: Node | undefined,
    args: Node[],
    argCosts: Range[],
  ): { cost: Range; resultSize?: Range } {
    const argSum = argCosts.reduce((a, b) => range.add(a, b), range.fixed(0));
    const k8s = this.kubernetesCost(fn, target);
    if (k8s) return { cost: range.add(k8s.cost, argSum), resultSize: k8s.resultSize };
    switch (id) {
      case 'starts_with_string':
      case 'ends_with_string':
        return { cost: range.add(range.byFactor(this.size(args[0]!), STRING_TRAVERSAL), argSum) };
      case 'in_list':
        return { cost: range.add(range.byFactor(this.size(args[1]!), 1), argSum) };
      case 'matches_string': {
        const str = range.byFactor(range.add(this.size(target!), range.fixed(1)), STRING_TRAVERSAL);
        const regex = range.byFactor(this.size(args[0]!), REGEX_LENGTH);
        return { cost: range.add(range.multiply(str, regex), argSum) };
      }
      case 'contains_string': {
        const str = range.byFactor(this.size(target!), STRING_TRAVERSAL);
        const sub = range.byFactor(this.size(args[0]!), STRING_TRAVERSAL);
        return { cost: range.add(range.multiply(str, sub), argSum) };
      }
      case 'logical_or':
      case 'logical_and':
        return { cost: { min: argCosts[0]!.min, max: range.add(argCosts[0]!, argCosts[1]!).max } };
      case 'conditional': {
        const resultSize = range.union(this.size(args[1]!), this.size(args[2]!));
        return { cost: range.add(argCosts[0]!, range.union(argCosts[1]!, argCosts[2]!)), resultSize };
      }
      case 'add_string':
      case 'add_bytes':
      case 'add_list': {
        const resultSize = range.add(this.size(args[0]!), this.size(args[1]!));
        const cost = id === 'add_list' ? range.fixed(1) : range.byFactor(resultSize, STRING_TRAVERSAL);
        return { cost: range.add(cost, argSum), resultSize };
      }
      default:
        if (/^(less|greater)(_equals)?_(string|bytes)$/.test(id) || id === 'equals' || id === 'not_equals') {
          const smallestMax = Math.min(this.size(args[0]!).max, this.size(args[1]!).max);
          const compare = range.byFactor(
            { min: smallestMax > 0 ? 1 : 0, max: smallestMax },
            STRING_TRAVERSAL,
          );
          return { cost: range.add(compare, argSum) };
        }
        return { cost: range.add(range.fixed(1), argSum) };
    }
  }

  /** The Kubernetes library's own estimates (by function name), before cel-go's defaults. */
  private kubernetesCost(
    fn: string,
    target: Node | undefined,
  ): { cost: Range; resultSize?: Range } | undefined {
    switch (fn) {
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf': {
        if (!target) return undefined;
        if (target.type.kind === 'list') {
          let elCost = range.fixed(1);
          const el: Node = {
            expr: target.expr,
            type: target.type.elem,
            path: target.path ? [...target.path, '@items'] : undefined,
          };
          if (el.type.kind === 'string' || el.type.kind === 'bytes') {
            elCost = range.add(elCost, range.byFactor(this.itemSize(el), STRING_TRAVERSAL));
          }
          return { cost: range.multiply(this.size(target), elCost) };
        }
        return { cost: range.byFactor(this.size(target), STRING_TRAVERSAL) };
      }
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim': {
        if (!target) return undefined;
        const sz = this.size(target);
        return { cost: range.byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
      }
      case 'split': {
        if (!target) return undefined;
        const sz = this.size(target);
        return { cost: range.byFactor(sz, 2 * STRING_TRAVERSAL), resultSize: { min: 0, max: sz.max } };
      }
      case 'replace':
      case 'join':
        throw new NotEmulatedCel(`the estimated cost of the CEL function ${fn}()`);
      default:
        return undefined;
    }
  }

  /** The size of a list's items: by path when there is one, else unknown. */
  private itemSize(el: Node): Range {
    return this.estimateSize(el) ?? range.unknown();
  }
}

/** The estimated cost range of a checked expression whose `self` has the declared type `root`. */
export function estimateCost(checked: Checked, root: DeclType): Range {
  return new Coster(checked, root).cost(checked.expr);
}
