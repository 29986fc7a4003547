import { fieldErr, type FieldError } from '../errors';
import { isPlainObject, type Obj } from '../types';
import { goPlain, goType } from './goValues';

/** A CRD version's `subresources.scale`. */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

function segments(path: string): string[] {
  return path.replace(/^\./, '').split('.');
}

/** unstructured.NestedFieldNoCopy: the value at a dotted path, or the accessor error. */
function nested(obj: Obj, path: string): { value?: unknown; found: boolean; error?: string } {
  const fields = segments(path);
  let cur: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (!isPlainObject(cur)) {
      const at = `.${fields.slice(0, i + 1).join('.')}`;
      return {
        found: false,
        error: `${at} accessor error: ${goPlain(cur)} is of the type ${goType(cur)}, expected map[string]interface{}`,
      };
    }
    if (!(fields[i]! in cur)) return { found: false };
    cur = cur[fields[i]!];
  }
  return { value: cur, found: true };
}

/** unstructured.NestedInt64: an int64 only (an integral JSON number). */
export function nestedInt64(obj: Obj, path: string): { value: number; found: boolean; error?: string } {
  const got = nested(obj, path);
  if (got.error) return { value: 0, found: false, error: got.error };
  if (!got.found) return { value: 0, found: false };
  const v = got.value;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    return {
      value: 0,
      found: true,
      error: `.${segments(path).join('.')} accessor error: ${goPlain(v)} is of the type ${goType(v)}, expected int64`,
    };
  }
  return { value: v, found: true };
}

/** unstructured.NestedString. */
export function nestedString(obj: Obj, path: string): { value: string; error?: string } {
  const got = nested(obj, path);
  if (got.error) return { value: '', error: got.error };
  if (!got.found) return { value: '' };
  if (typeof got.value !== 'string') {
    return {
      value: '',
      error: `.${segments(path).join('.')} accessor error: ${goPlain(got.value)} is of the type ${goType(got.value)}, expected string`,
    };
  }
  return { value: got.value };
}

export function setNested(obj: Obj, path: string, value: unknown): void {
  const fields = segments(path);
  let cur = obj;
  for (const f of fields.slice(0, -1)) {
    if (!isPlainObject(cur[f])) cur[f] = {};
    cur = cur[f];
  }
  cur[fields[fields.length - 1]!] = value;
}

const MAX_INT32 = 2147483647;

function replicasErrors(obj: Obj, path: string): FieldError[] {
  const r = nestedInt64(obj, path);
  if (r.error) return [fieldErr.invalid(path, r.value, r.error)];
  if (r.value < 0) return [fieldErr.invalid(path, r.value, 'should be a non-negative integer')];
  if (r.value > MAX_INT32)
    return [fieldErr.invalid(path, r.value, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/** ValidateScaleSpec: the spec replicas an int64 in int32's non-negative range (18 #11, #36). */
export function scaleSpecErrors(obj: Obj, scale: ScalePaths | undefined): FieldError[] {
  return scale ? replicasErrors(obj, scale.specReplicasPath) : [];
}

/** ValidateScaleStatus: the status replicas likewise, the label selector a string. */
export function scaleStatusErrors(obj: Obj, scale: ScalePaths | undefined): FieldError[] {
  if (!scale) return [];
  const errs = replicasErrors(obj, scale.statusReplicasPath);
  if (scale.labelSelectorPath) {
    const s = nestedString(obj, scale.labelSelectorPath);
    if (s.error) errs.push(fieldErr.invalid(scale.labelSelectorPath, s.value, s.error));
  }
  return errs;
}
