/** The CEL type system as the checker needs it, and cel-go's names for its types. */
import type { DeclType } from './declTypes';
import { NotEmulatedCel } from './errors';

type Primitive =
  'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null' | 'timestamp' | 'duration' | 'dyn';

export type CelType =
  | { kind: Primitive }
  | { kind: 'list'; elem: CelType }
  | { kind: 'map'; key: CelType; value: CelType }
  /** An object declared by a schema (a struct type in cel-go). */
  | { kind: 'object'; decl: DeclType }
  /** The type of a type value: `int` is a value of type type(int). */
  | { kind: 'type'; of: CelType }
  | { kind: 'optional'; elem: CelType }
  /** A type parameter of an overload signature. */
  | { kind: 'param'; name: string };

export const t = {
  int: { kind: 'int' } as CelType,
  uint: { kind: 'uint' } as CelType,
  double: { kind: 'double' } as CelType,
  bool: { kind: 'bool' } as CelType,
  string: { kind: 'string' } as CelType,
  bytes: { kind: 'bytes' } as CelType,
  null: { kind: 'null' } as CelType,
  timestamp: { kind: 'timestamp' } as CelType,
  duration: { kind: 'duration' } as CelType,
  dyn: { kind: 'dyn' } as CelType,
  list: (elem: CelType): CelType => ({ kind: 'list', elem }),
  map: (key: CelType, value: CelType): CelType => ({ kind: 'map', key, value }),
  type: (of: CelType): CelType => ({ kind: 'type', of }),
  optional: (elem: CelType): CelType => ({ kind: 'optional', elem }),
  param: (name: string): CelType => ({ kind: 'param', name }),
};

/** The CEL type of values a schema node declares. */
export function fromDecl(d: DeclType): CelType {
  switch (d.kind) {
    case 'object':
      return { kind: 'object', decl: d };
    case 'map':
      return t.map(t.string, fromDecl(d.elem!));
    case 'list':
      return t.list(fromDecl(d.elem!));
    default:
      return { kind: d.kind };
  }
}

/**
 * cel-go's FormatCELType. Schema objects have server-generated names that change per request
 * (`selfType<nanoseconds>.spec`): a message naming one cannot be reproduced.
 */
export function typeName(ty: CelType): string {
  switch (ty.kind) {
    case 'null':
      return 'null_type';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'list':
      return `list(${typeName(ty.elem)})`;
    case 'map':
      return `map(${typeName(ty.key)}, ${typeName(ty.value)})`;
    case 'type':
      return `type(${typeName(ty.of)})`;
    case 'optional':
      return `optional_type(${typeName(ty.elem)})`;
    case 'object':
      throw new NotEmulatedCel(
        'a CEL type error naming a schema object type (its name is generated per request)',
      );
    case 'param':
      return ty.name;
    default:
      return ty.kind;
  }
}

export function sameType(a: CelType, b: CelType): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'list':
      return sameType(a.elem, (b as typeof a).elem);
    case 'map':
      return sameType(a.key, (b as typeof a).key) && sameType(a.value, (b as typeof a).value);
    case 'type':
      return sameType(a.of, (b as typeof a).of);
    case 'optional':
      return sameType(a.elem, (b as typeof a).elem);
    case 'object':
      return a.decl === (b as typeof a).decl;
    case 'param':
      return a.name === (b as typeof a).name;
    default:
      return true;
  }
}
