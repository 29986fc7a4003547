/**
 * CEL's abstract syntax, as cel-go builds it: operators are calls of `_+_`, `_==_`, `@in`, `_[_]`
 * …; macros (has, all, exists, exists_one, map, filter) are already expanded into presence tests
 * and comprehensions. Every node has an id and the code-point offset cel-go reports errors at.
 */

export type LiteralType = 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'bool' | 'null';

interface Node {
  id: number;
  offset: number;
}

export interface Literal extends Node {
  kind: 'literal';
  type: LiteralType;
  value: bigint | number | string | boolean | Uint8Array | null;
}

interface Ident extends Node {
  kind: 'ident';
  name: string;
}

interface Select extends Node {
  kind: 'select';
  operand: Expr;
  field: string;
  /** has(x.f): tests presence instead of reading. */
  testOnly: boolean;
}

interface Call extends Node {
  kind: 'call';
  fn: string;
  target?: Expr;
  args: Expr[];
}

interface ListExpr extends Node {
  kind: 'list';
  elements: Expr[];
}

interface MapExpr extends Node {
  kind: 'map';
  entries: { key: Expr; value: Expr }[];
}

export interface Comprehension extends Node {
  kind: 'comprehension';
  iterVar: string;
  iterRange: Expr;
  accuVar: string;
  accuInit: Expr;
  loopCondition: Expr;
  loopStep: Expr;
  result: Expr;
}

export type Expr = Literal | Ident | Select | Call | ListExpr | MapExpr | Comprehension;

/** The accumulator of expanded macros (cel-go's parser.AccumulatorName). */
export const ACCUMULATOR = '__result__';
