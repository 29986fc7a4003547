import { fieldErr, type FieldError } from '../errors';
import type { ResourceType, WriteContext } from '../resources';
import { deepEqual, type Obj } from '../types';
import { builtin } from './common';
import { decoding } from './decoding';
import { unmarshalObjectError } from './goJson';
import { validateObjectMeta } from './metaValidation';
import { isConfigMapKey, isDns1123Subdomain } from './nameRules';

/** Secrets and ConfigMaps together may hold at most 1 MiB of data. */
export const MAX_DATA_SIZE = 1024 * 1024;

const decoded = (v: unknown) => Buffer.from(String(v ?? ''), 'base64');

/** Keys a typed Secret must hold (ValidateSecret). */
function validateType(secret: Obj, data: Record<string, string>): FieldError[] {
  const has = (k: string) => k in data;
  const dockerJson = (key: string): FieldError[] => {
    if (!has(key)) return [fieldErr.required(`data[${key}]`)];
    const err = unmarshalObjectError(decoded(data[key]).toString('utf8'));
    return err ? [fieldErr.invalid(`data[${key}]`, '<secret contents redacted>', err)] : [];
  };
  switch (secret.type) {
    case 'kubernetes.io/service-account-token':
      return secret.metadata.annotations?.['kubernetes.io/service-account.name']
        ? []
        : [fieldErr.required('metadata.annotations[kubernetes.io/service-account.name]')];
    case 'kubernetes.io/dockercfg':
      return dockerJson('.dockercfg');
    case 'kubernetes.io/dockerconfigjson':
      return dockerJson('.dockerconfigjson');
    case 'kubernetes.io/basic-auth':
      return has('username') || has('password')
        ? []
        : [fieldErr.required('data[username]'), fieldErr.required('data[password]')];
    case 'kubernetes.io/ssh-auth':
      return decoded(data['ssh-privatekey']).length ? [] : [fieldErr.required('data[ssh-privatekey]')];
    case 'kubernetes.io/tls':
      return [
        ...(has('tls.crt') ? [] : [fieldErr.required('data[tls.crt]')]),
        ...(has('tls.key') ? [] : [fieldErr.required('data[tls.key]')]),
      ];
    default:
      return [];
  }
}

function validateSecret(secret: Obj): FieldError[] {
  const errs = validateObjectMeta(secret.metadata, isDns1123Subdomain, true);
  const data = (secret.data ?? {}) as Record<string, string>;
  let size = 0;
  for (const k of Object.keys(data).sort()) {
    errs.push(...isConfigMapKey(k).map((m) => fieldErr.invalid(`data[${k}]`, k, m)));
    size += decoded(data[k]).length;
  }
  if (size > MAX_DATA_SIZE) {
    errs.push({
      type: 'TooLong',
      field: 'data',
      detail: `Too long: may not be more than ${MAX_DATA_SIZE} bytes`,
    });
  }
  return [...errs, ...validateType(secret, data)];
}

/** What an immutable Secret or ConfigMap refuses to change. */
export function immutableErrors(obj: Obj, old: Obj | undefined, fields: string[]): FieldError[] {
  if (old?.immutable !== true) return [];
  const errs: FieldError[] = [];
  const message = 'field is immutable when `immutable` is set';
  if (obj.immutable !== true) errs.push(fieldErr.forbidden('immutable', message));
  for (const f of fields)
    if (!deepEqual(old[f] ?? {}, obj[f] ?? {})) errs.push(fieldErr.forbidden(f, message));
  return errs;
}

function validateSecretWrite(secret: Obj, ctx: WriteContext): FieldError[] {
  const old = ctx.operation === 'create' ? undefined : ctx.old;
  const errs: FieldError[] = [];
  if (old && old.type !== secret.type)
    errs.push(fieldErr.invalid('type', secret.type ?? '', 'field is immutable'));
  return [...errs, ...immutableErrors(secret, old, ['data']), ...validateSecret(secret)];
}

/** v1 Secret: stringData folded into data (stringData wins), typed keys, immutability (13, 19). */
export const secrets: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  namespaced: true,
  ...decoding('v1', 'Secret'),
  defaults(obj) {
    if (obj.stringData) {
      obj.data = { ...(obj.data ?? {}) };
      for (const [k, v] of Object.entries(obj.stringData as Record<string, string>)) {
        obj.data[k] = Buffer.from(String(v), 'utf8').toString('base64');
      }
      delete obj.stringData;
    }
    obj.type = obj.type || 'Opaque';
  },
  validate: validateSecretWrite,
});
