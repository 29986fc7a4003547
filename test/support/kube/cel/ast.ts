/** The syntax tree of a CEL expression (cel-spec's grammar, without protobuf message literals). */
export type CelNode =
  | { kind: 'literal'; value: CelLiteral }
  | { kind: 'ident'; name: string }
  | { kind: 'select'; operand: CelNode; field: string }
  | { kind: 'index'; operand: CelNode; index: CelNode }
  | { kind: 'call'; fn: string; target?: CelNode; args: CelNode[] }
  | { kind: 'list'; items: CelNode[] }
  | { kind: 'map'; entries: { key: CelNode; value: CelNode }[] }
  | { kind: 'unary'; op: '!' | '-'; operand: CelNode }
  | { kind: 'binary'; op: BinaryOp; left: CelNode; right: CelNode }
  | { kind: 'conditional'; test: CelNode; then: CelNode; otherwise: CelNode };

export type BinaryOp =
  '||' | '&&' | '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | '+' | '-' | '*' | '/' | '%';

/** CEL's int is a 64-bit integer: kept as a bigint so that it never turns into a double. */
type CelLiteral = bigint | number | string | boolean | null | CelUint | Uint8Array;

/** An unsigned integer literal (`1u`). */
export class CelUint {
  constructor(readonly value: bigint) {}
}
