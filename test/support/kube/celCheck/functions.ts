/**
 * The overloads the checker resolves calls against: CEL's standard library and the Kubernetes
 * extensions a CRD rule commonly uses, with cel-go's overload ids (cost estimation keys on them).
 * A function not listed here is one the emulator does not judge: the request is refused.
 */
import { t, type CelType } from './types';

export interface Overload {
  id: string;
  /** Receiver-style (`x.f(y)`): the first parameter is the target. */
  member: boolean;
  params: CelType[];
  result: CelType;
}

const A = t.param('A');
const B = t.param('B');

const overloads = new Map<string, Overload[]>();

function add(fn: string, id: string, member: boolean, params: CelType[], result: CelType): void {
  const list = overloads.get(fn) ?? [];
  list.push({ id, member, params, result });
  overloads.set(fn, list);
}
const global = (fn: string, id: string, params: CelType[], result: CelType) =>
  add(fn, id, false, params, result);
const member = (fn: string, id: string, params: CelType[], result: CelType) =>
  add(fn, id, true, params, result);

global('_==_', 'equals', [A, A], t.bool);
global('_!=_', 'not_equals', [A, A], t.bool);
global('!_', 'logical_not', [t.bool], t.bool);
global('-_', 'negate_int64', [t.int], t.int);
global('-_', 'negate_double', [t.double], t.double);
global('_&&_', 'logical_and', [t.bool, t.bool], t.bool);
global('_||_', 'logical_or', [t.bool, t.bool], t.bool);
global('_?_:_', 'conditional', [t.bool, A, A], A);
global('@not_strictly_false', 'not_strictly_false', [t.bool], t.bool);

const ORDERED: [string, CelType][] = [
  ['bool', t.bool],
  ['int64', t.int],
  ['uint64', t.uint],
  ['double', t.double],
  ['string', t.string],
  ['bytes', t.bytes],
  ['timestamp', t.timestamp],
  ['duration', t.duration],
];
const MIXED_NUMBERS: [string, CelType, CelType][] = [
  ['int64_uint64', t.int, t.uint],
  ['int64_double', t.int, t.double],
  ['uint64_int64', t.uint, t.int],
  ['uint64_double', t.uint, t.double],
  ['double_int64', t.double, t.int],
  ['double_uint64', t.double, t.uint],
];
for (const [fn, prefix] of [
  ['_<_', 'less'],
  ['_<=_', 'less_equals'],
  ['_>_', 'greater'],
  ['_>=_', 'greater_equals'],
] as const) {
  for (const [suffix, ty] of ORDERED) global(fn, `${prefix}_${suffix}`, [ty, ty], t.bool);
  for (const [suffix, l, r] of MIXED_NUMBERS) global(fn, `${prefix}_${suffix}`, [l, r], t.bool);
}

for (const [fn, prefix] of [
  ['_+_', 'add'],
  ['_-_', 'subtract'],
  ['_*_', 'multiply'],
  ['_/_', 'divide'],
] as const) {
  for (const [suffix, ty] of [
    ['int64', t.int],
    ['uint64', t.uint],
    ['double', t.double],
  ] as const) {
    global(fn, `${prefix}_${suffix}`, [ty, ty], ty);
  }
}
global('_%_', 'modulo_int64', [t.int, t.int], t.int);
global('_%_', 'modulo_uint64', [t.uint, t.uint], t.uint);
global('_+_', 'add_string', [t.string, t.string], t.string);
global('_+_', 'add_bytes', [t.bytes, t.bytes], t.bytes);
global('_+_', 'add_list', [t.list(A), t.list(A)], t.list(A));
global('_+_', 'add_timestamp_duration', [t.timestamp, t.duration], t.timestamp);
global('_+_', 'add_duration_timestamp', [t.duration, t.timestamp], t.timestamp);
global('_+_', 'add_duration_duration', [t.duration, t.duration], t.duration);
global('_-_', 'subtract_timestamp_timestamp', [t.timestamp, t.timestamp], t.duration);
global('_-_', 'subtract_timestamp_duration', [t.timestamp, t.duration], t.timestamp);
global('_-_', 'subtract_duration_duration', [t.duration, t.duration], t.duration);

global('@in', 'in_list', [A, t.list(A)], t.bool);
global('@in', 'in_map', [A, t.map(A, B)], t.bool);
global('_[_]', 'index_list', [t.list(A), t.int], A);
global('_[_]', 'index_map', [t.map(A, B), A], B);

for (const [suffix, ty] of [
  ['string', t.string],
  ['bytes', t.bytes],
  ['list', t.list(A)],
  ['map', t.map(A, B)],
] as const) {
  global('size', `size_${suffix}`, [ty], t.int);
  member('size', `${suffix}_size`, [ty], t.int);
}
member('contains', 'contains_string', [t.string, t.string], t.bool);
member('startsWith', 'starts_with_string', [t.string, t.string], t.bool);
member('endsWith', 'ends_with_string', [t.string, t.string], t.bool);
global('matches', 'matches', [t.string, t.string], t.bool);
member('matches', 'matches_string', [t.string, t.string], t.bool);

const conversions: [string, [string, CelType][], CelType][] = [
  [
    'int',
    [
      ['int64', t.int],
      ['uint64', t.uint],
      ['double', t.double],
      ['string', t.string],
      ['timestamp', t.timestamp],
    ],
    t.int,
  ],
  [
    'uint',
    [
      ['int64', t.int],
      ['uint64', t.uint],
      ['double', t.double],
      ['string', t.string],
    ],
    t.uint,
  ],
  [
    'double',
    [
      ['int64', t.int],
      ['uint64', t.uint],
      ['double', t.double],
      ['string', t.string],
    ],
    t.double,
  ],
  [
    'string',
    [
      ['int64', t.int],
      ['uint64', t.uint],
      ['double', t.double],
      ['bytes', t.bytes],
      ['bool', t.bool],
      ['timestamp', t.timestamp],
      ['duration', t.duration],
      ['string', t.string],
    ],
    t.string,
  ],
  [
    'bytes',
    [
      ['string', t.string],
      ['bytes', t.bytes],
    ],
    t.bytes,
  ],
  [
    'bool',
    [
      ['string', t.string],
      ['bool', t.bool],
    ],
    t.bool,
  ],
  [
    'timestamp',
    [
      ['string', t.string],
      ['int64', t.int],
      ['timestamp', t.timestamp],
    ],
    t.timestamp,
  ],
  [
    'duration',
    [
      ['string', t.string],
      ['duration', t.duration],
    ],
    t.duration,
  ],
];
const GO_NAMES: Record<string, string> = { int: 'int64', uint: 'uint64' };
for (const [fn, from, to] of conversions) {
  for (const [suffix, ty] of from) global(fn, `${suffix}_to_${GO_NAMES[fn] ?? fn}`, [ty], to);
}
global('dyn', 'to_dyn', [A], t.dyn);
global('type', 'type', [A], t.type(A));

global('optional.of', 'optional_of', [A], t.optional(A));
global('optional.none', 'optional_none', [], t.optional(t.dyn));
member('hasValue', 'optional_hasValue', [t.optional(A)], t.bool);
member('value', 'optional_value', [t.optional(A)], A);
member('orValue', 'optional_orValue_value', [t.optional(A), A], A);
member('or', 'optional_or_optional', [t.optional(A), t.optional(A)], t.optional(A));

// Kubernetes' string and list extensions.
member('charAt', 'string_char_at_int', [t.string, t.int], t.string);
member('indexOf', 'string_index_of_string', [t.string, t.string], t.int);
member('indexOf', 'string_index_of_string_int', [t.string, t.string, t.int], t.int);
member('lastIndexOf', 'string_last_index_of_string', [t.string, t.string], t.int);
member('lastIndexOf', 'string_last_index_of_string_int', [t.string, t.string, t.int], t.int);
member('lowerAscii', 'string_lower_ascii', [t.string], t.string);
member('upperAscii', 'string_upper_ascii', [t.string], t.string);
member('replace', 'string_replace_string_string', [t.string, t.string, t.string], t.string);
member('replace', 'string_replace_string_string_int', [t.string, t.string, t.string, t.int], t.string);
member('split', 'string_split_string', [t.string, t.string], t.list(t.string));
member('split', 'string_split_string_int', [t.string, t.string, t.int], t.list(t.string));
member('substring', 'string_substring_int', [t.string, t.int], t.string);
member('substring', 'string_substring_int_int', [t.string, t.int, t.int], t.string);
member('trim', 'string_trim', [t.string], t.string);
member('join', 'list_join', [t.list(t.string)], t.string);
member('join', 'list_join_string', [t.list(t.string), t.string], t.string);
member('isSorted', 'list_is_sorted', [t.list(A)], t.bool);
member('sum', 'list_sum', [t.list(A)], A);
member('min', 'list_min', [t.list(A)], A);
member('max', 'list_max', [t.list(A)], A);
member('indexOf', 'list_index_of', [t.list(A), A], t.int);
member('lastIndexOf', 'list_last_index_of', [t.list(A), A], t.int);

export function overloadsOf(fn: string): Overload[] | undefined {
  return overloads.get(fn);
}

/** Identifiers that name types (`type(self) == int`). */
export const TYPE_IDENTIFIERS: Record<string, CelType> = {
  int: t.int,
  uint: t.uint,
  double: t.double,
  bool: t.bool,
  string: t.string,
  bytes: t.bytes,
  null_type: t.null,
  dyn: t.dyn,
  list: t.list(t.dyn),
  map: t.map(t.dyn, t.dyn),
};
