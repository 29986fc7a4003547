/**
 * cel-go's cost arithmetic on uint64: saturating at 2^64-1, factors rounded up. Numbers keep the
 * magnitude; they are exact below 2^53, which covers every budget comparison that matters.
 */
/** 2^64-1 as a double (which rounds it to 2^64). */
export const MAX_UINT64 = 2 ** 64;

export interface Range {
  min: number;
  max: number;
}

function saturatingAdd(a: number, b: number): number {
  return Math.min(a + b, MAX_UINT64);
}

export function saturatingMultiply(a: number, b: number): number {
  return Math.min(a * b, MAX_UINT64);
}

function byFactor(x: number, factor: number): number {
  return Math.min(Math.ceil(x * factor), MAX_UINT64);
}

export const range = {
  fixed: (n: number): Range => ({ min: n, max: n }),
  unknown: (): Range => ({ min: 0, max: MAX_UINT64 }),
  add: (a: Range, b: Range): Range => ({
    min: saturatingAdd(a.min, b.min),
    max: saturatingAdd(a.max, b.max),
  }),
  multiply: (a: Range, b: Range): Range => ({
    min: saturatingMultiply(a.min, b.min),
    max: saturatingMultiply(a.max, b.max),
  }),
  byFactor: (a: Range, f: number): Range => ({ min: byFactor(a.min, f), max: byFactor(a.max, f) }),
  union: (a: Range, b: Range): Range => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) }),
};
