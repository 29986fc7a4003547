/**
 * The CustomResourceDefinition kind: decoded as the server's v1 Go types (crdValidation/decode.ts),
 * defaulted as v1 defaults, validated by crdValidation/. What happens once one is stored is in
 * crdServing.ts.
 */
import { builtin, storageVersionHash } from './builtins/common';
import { NotEmulatedCel } from './celCheck/errors';
import { decodeCustomResourceDefinition } from './crdValidation/decode';
import { validateCustomResourceDefinition } from './crdValidation';
import { validateNames } from './crdValidation/names';
import { notEmulated } from './errors';
import type { ResourceType } from './resources';
import type { Obj } from './types';

/** The version objects are stored in (the one marked storage). */
function storageVersion(crd: Obj): string | undefined {
  return ((crd.spec?.versions ?? []) as Obj[]).find((v) => v.storage)?.name;
}

/** apiextensions' v1 defaulting: conversion None, singular and listKind from the kind, webhook port 443. */
function defaultSpec(spec: Obj): void {
  spec.conversion = spec.conversion ?? { strategy: 'None' };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service && service.port === undefined) service.port = 443;
  const names = spec.names;
  if (names && typeof names.kind === 'string') {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  }
}

/** The CustomResourceDefinition kind itself. */
export const customResourceDefinitions: ResourceType = builtin({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  // etcd still stores CRDs as v1beta1 (16 #9).
  storageVersionHash: storageVersionHash('apiextensions.k8s.io', 'v1beta1', 'CustomResourceDefinition'),
  subresources: ['status'],
  generation: true,
  prune: decodeCustomResourceDefinition,
  defaults(obj, ctx) {
    if (obj.spec) defaultSpec(obj.spec);
    const storage = storageVersion(obj);
    if (ctx.operation === 'create') {
      // What the create answers: no conditions yet, names not accepted (01 #4).
      obj.status = {
        conditions: null,
        acceptedNames: { plural: '', kind: '' },
        storedVersions: storage ? [storage] : null,
      };
    } else if (
      ctx.operation === 'update' &&
      obj.status &&
      storage &&
      !((obj.status.storedVersions ?? []) as string[]).includes(storage)
    ) {
      // A new storage version is recorded as stored at once (the strategy's PrepareForUpdate).
      obj.status.storedVersions = [...((obj.status.storedVersions ?? []) as string[]), storage];
    }
  },
  validate(obj, ctx) {
    // Through /status only the accepted names are checked (ValidateUpdateCustomResourceDefinitionStatus).
    if (ctx.operation === 'status')
      return validateNames(obj.status?.acceptedNames ?? {}, 'status.acceptedNames');
    try {
      return validateCustomResourceDefinition(obj, ctx.operation === 'create' ? undefined : ctx.old);
    } catch (e) {
      if (e instanceof NotEmulatedCel) throw notEmulated(e.message);
      throw e;
    }
  },
});
