import { isPlainObject, type Obj } from '../types';

/**
 * Go's `%#v` of the values that field errors print (apimachinery's field.Error renders anything
 * that is neither a plain scalar nor a Stringer that way): maps with sorted keys, nil slices as
 * `[]T(nil)`, pointers as `(*T)(0xc…)`. The recorder replaced real addresses by `0x<pointer>`
 * (19 #19, #112), so any address will do.
 */

let nextAddress = 0xc000a1b2c0;

/** A pointer field of a struct: `(*T)(nil)` when unset, else an address. */
export function goPointer(type: string, value: unknown): string {
  if (value === undefined || value === null) return `(*${type})(nil)`;
  nextAddress += 0x10;
  return `(*${type})(0x${nextAddress.toString(16)})`;
}

export function goQuote(s: string): string {
  return JSON.stringify(s);
}

export function goStringMap(m: Record<string, string> | undefined | null): string {
  if (!isPlainObject(m)) return 'map[string]string(nil)';
  const body = Object.keys(m)
    .sort()
    .map((k) => `${goQuote(k)}:${goQuote(String(m[k]))}`)
    .join(', ');
  return `map[string]string{${body}}`;
}

export function goStringSlice(list: unknown): string {
  if (!Array.isArray(list)) return '[]string(nil)';
  return `[]string{${list.map((s) => goQuote(String(s))).join(', ')}}`;
}

/** intstr.IntOrString by value (Type 0 = Int, 1 = String). */
export function goIntOrString(v: unknown): string {
  return typeof v === 'string'
    ? `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}`
    : `intstr.IntOrString{Type:0, IntVal:${Number(v ?? 0)}, StrVal:""}`;
}

function goRequirement(r: Obj): string {
  return `v1.LabelSelectorRequirement{Key:${goQuote(r.key ?? '')}, Operator:${goQuote(r.operator ?? '')}, Values:${goStringSlice(r.values)}}`;
}

/** metav1.LabelSelector by value. */
export function goLabelSelector(sel: Obj | undefined): string {
  const exprs = Array.isArray(sel?.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${(sel.matchExpressions as Obj[]).map(goRequirement).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(sel?.matchLabels)}, MatchExpressions:${exprs}}`;
}

/** A struct by value: its Go type name and fields already rendered, in declaration order. */
export function goStruct(type: string, fields: [string, string][]): string {
  return `${type}{${fields.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
}
