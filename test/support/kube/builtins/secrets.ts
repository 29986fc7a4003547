import { ApiError, fieldErr, type FieldError } from '../errors';
import type { ResourceType } from '../resources';
import { deepEqual, type Obj } from '../types';
import { validateSubdomainName } from '../validation';
import { builtin } from './common';

const KEY = /^[-._a-zA-Z0-9]+$/;
const KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** Go's base64.StdEncoding error: the index of the first byte that cannot be part of the data. */
function checkBase64(value: string): void {
  const m = /[^A-Za-z0-9+/=]/.exec(value);
  if (m)
    throw new ApiError(
      400,
      'BadRequest',
      `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${m.index}`,
    );
  if (value.length % 4 !== 0) {
    throw new ApiError(
      400,
      'BadRequest',
      `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${value.length - (value.length % 4)}`,
    );
  }
}

const REQUIRED_KEYS: Record<string, string[]> = {
  'kubernetes.io/basic-auth': ['username', 'password'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
};

/** v1 Secret: stringData folded into data (stringData wins), base64 checks, keys, types, immutability (13). */
export const secrets: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  namespaced: true,
  defaults(obj) {
    for (const v of Object.values((obj.data ?? {}) as Record<string, unknown>))
      if (typeof v === 'string') checkBase64(v);
    if (obj.stringData) {
      obj.data = { ...(obj.data ?? {}) };
      for (const [k, v] of Object.entries(obj.stringData as Record<string, string>)) {
        obj.data[k] = Buffer.from(String(v), 'utf8').toString('base64');
      }
      delete obj.stringData;
    }
    obj.type = obj.type ?? 'Opaque';
  },
  validate(obj, ctx) {
    const errs: FieldError[] = validateSubdomainName('metadata.name', obj.metadata.name);
    const data = (obj.data ?? {}) as Record<string, string>;
    for (const k of Object.keys(data)) {
      if (!KEY.test(k)) errs.push(fieldErr.invalid(`data[${k}]`, k, KEY_MSG));
      if (k.startsWith('..')) errs.push(fieldErr.invalid(`data[${k}]`, k, "must not start with '..'"));
    }
    for (const k of REQUIRED_KEYS[obj.type] ?? []) {
      if (obj.type === 'kubernetes.io/basic-auth' && (data.username || data.password)) break;
      if (!(k in data)) errs.push(fieldErr.required(`data[${k}]`));
    }
    const old = ctx.old as Obj | undefined;
    if (old?.immutable && !deepEqual(old.data ?? {}, obj.data ?? {})) {
      errs.push(fieldErr.forbidden('data', 'field is immutable when `immutable` is set'));
    }
    return errs;
  },
});
