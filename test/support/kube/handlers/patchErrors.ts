import { ApiError } from '../errors';
import { deepEqual, isPlainObject, type Obj } from '../types';

/**
 * The 422 of a patched object that does not decode (strict decoding, a bad MicroTime): the
 * server quotes what it tried to decode, `… "" is invalid: patch: Invalid value: "<it>": <why>`,
 * with no kind or name (04 #8, 10-lease #10).
 */
export function patchDecodeError(quoted: string, why: string): ApiError {
  const detail = `Invalid value: ${JSON.stringify(quoted)}: ${why}`;
  return new ApiError(422, 'Invalid', ` "" is invalid: patch: ${detail}`, {
    causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }],
  });
}

/** Go's `%+v` of a decoded JSON value, as a strategic merge patch's error quotes the patch. */
export function goMapString(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goMapString).join(' ')}]`;
  if (isPlainObject(v)) {
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goMapString(v[k])}`)
      .join(' ')}]`;
  }
  return v === null ? '<nil>' : String(v);
}

const OBJECT_META_ORDER = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];
const MANAGED_FIELDS_ENTRY_ORDER = [
  'manager',
  'operation',
  'apiVersion',
  'time',
  'fieldsType',
  'fieldsV1',
  'subresource',
];

function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (isPlainObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function orderedJson(v: Obj, order: string[], field: (k: string, x: unknown) => string): string {
  const keys = [
    ...order.filter((k) => v[k] !== undefined),
    ...Object.keys(v).filter((k) => !order.includes(k)),
  ];
  return `{${keys.map((k) => `${JSON.stringify(k)}:${field(k, v[k])}`).join(',')}}`;
}

/** ObjectMeta as a typed object encodes: Go's field order, maps sorted, fieldsV1 as stored. */
function objectMetaJson(meta: Obj): string {
  return orderedJson(meta, OBJECT_META_ORDER, (k, x) => {
    if (k !== 'managedFields' || !Array.isArray(x)) return sortedJson(x);
    const entries = x.map((e: Obj) =>
      orderedJson(e, MANAGED_FIELDS_ENTRY_ORDER, (ek, ev) =>
        ek === 'fieldsV1' ? JSON.stringify(ev) : sortedJson(ev),
      ),
    );
    return `[${entries.join(',')}]`;
  });
}

/** A value the patch did not touch: bytes as the stored object encodes them. */
function untouchedJson(key: string, v: unknown, top: boolean): string {
  if (top && key === 'metadata' && isPlainObject(v)) return objectMetaJson(v);
  return JSON.stringify(v);
}

/**
 * The patched object as the server's JSON merge patch writes it: a custom resource is a map
 * (keys sorted everywhere); a built-in keeps the encoding of the parts the patch did not touch
 * and sorts the objects it merged into (json-patch's lazy documents).
 */
export function patchedJson(old: Obj, patched: Obj, custom: boolean): string {
  if (custom) return sortedJson(patched);
  const walk = (before: unknown, after: unknown, key: string, top: boolean): string => {
    if (deepEqual(before, after)) return untouchedJson(key, after, top);
    if (isPlainObject(before) && isPlainObject(after)) {
      return `{${Object.keys(after)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${walk(before[k], after[k], k, false)}`)
        .join(',')}}`;
    }
    return JSON.stringify(after);
  };
  return `{${Object.keys(patched)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${walk(old[k], patched[k], k, true)}`)
    .join(',')}}`;
}
