/**
 * What the CEL checks of one schema node need to know about where it sits: its CEL type, how many
 * times it can occur in one object (the product of the maxItems/maxProperties above it, unbounded
 * if one is missing), and the CRD-wide total of estimated rule costs.
 */
import type { CompilationResult } from '../../celCheck/compile';
import { estimatedCardinality, schemaDeclType, type DeclType } from '../../celCheck/declTypes';
import { saturatingMultiply } from '../../celCheck/costMath';
import { isPlainObject, type Obj } from '../../types';

export const PER_EXPRESSION_COST_LIMIT = 10_000_000;
export const CRD_COST_LIMIT = 100_000_000;

/** The server's wording of a cost over budget: an exact factor below 100x. */
export function costErrorMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown =
    factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** The CRD-wide sum of rule costs and the (at most four) rules that weigh most in it. */
export class TotalCost {
  total = 0;
  mostExpensive: { path: string; cost: number }[] = [];

  observe(path: string, cost: number): void {
    this.total = Math.min(this.total + cost, Number.MAX_VALUE);
    // Rules under 1% of the limit are not named when the total is over it.
    if (cost < CRD_COST_LIMIT / 100) return;
    this.mostExpensive.push({ path, cost });
    this.mostExpensive.sort((a, b) => b.cost - a.cost);
    this.mostExpensive.length = Math.min(this.mostExpensive.length, 4);
  }
}

/** How many elements a list or map schema may hold (undefined: no bound declared). */
function maxElements(s: Obj): number | undefined {
  if (s.type === 'array') return s.maxItems;
  if (s.type === 'object' && isPlainObject(s.additionalProperties)) return s.maxProperties;
  return 1;
}

export class CelSchemaContext {
  private type?: DeclType | null;

  constructor(
    private readonly schema: Obj,
    private readonly isResourceRoot: boolean,
    /** undefined: some list or map above has no bound. */
    private readonly cardinality: number | undefined,
    readonly total: TotalCost,
    readonly suppressPerExpressionCost: boolean,
  ) {}

  static root(schema: Obj, suppressPerExpressionCost: boolean): CelSchemaContext {
    return new CelSchemaContext(schema, true, 1, new TotalCost(), suppressPerExpressionCost);
  }

  declType(): DeclType | undefined {
    if (this.type === undefined) this.type = schemaDeclType(this.schema, this.isResourceRoot) ?? null;
    return this.type ?? undefined;
  }

  /** How often a rule here could run if nothing above bounded it (from the type's smallest JSON size). */
  ownCardinality(): number {
    return estimatedCardinality(this.declType()?.minSerializedSize ?? 0);
  }

  expressionCost(result: CompilationResult): number {
    return saturatingMultiply(result.maxCost, this.cardinality ?? result.maxCardinality);
  }

  private childContext(s: Obj): CelSchemaContext {
    const bound = maxElements(this.schema);
    const cardinality =
      this.cardinality === undefined || bound === undefined
        ? undefined
        : saturatingMultiply(this.cardinality, Math.max(0, bound));
    return new CelSchemaContext(
      s,
      s['x-kubernetes-embedded-resource'] === true,
      cardinality,
      this.total,
      this.suppressPerExpressionCost,
    );
  }

  property(name: string): CelSchemaContext | undefined {
    const s = (this.schema.properties ?? {})[name];
    return isPlainObject(s) ? this.childContext(s) : undefined;
  }

  additionalProperties(): CelSchemaContext | undefined {
    return isPlainObject(this.schema.additionalProperties)
      ? this.childContext(this.schema.additionalProperties)
      : undefined;
  }

  items(): CelSchemaContext | undefined {
    return isPlainObject(this.schema.items) ? this.childContext(this.schema.items) : undefined;
  }
}
