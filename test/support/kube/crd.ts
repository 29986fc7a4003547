import { builtin, storageVersionHash } from './builtins/common';
import { NotEmulatedCel } from './cel/errors';
import { acceptNames, approvalCondition, establishedCondition, type Condition } from './crdNaming';
import { decodeCustomResourceDefinition } from './crdValidation/decode';
import { validateCustomResourceDefinition } from './crdValidation';
import { compareKubeVersions } from './kubeVersions';
import { notEmulated } from './errors';
import type { Registry, ResourceType } from './resources';
import { applyDefaults, prune, validateSchema, type Schema } from './schema';
import { clone, rfc3339, type Obj } from './types';

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
    } else if (obj.status && storage && !((obj.status.storedVersions ?? []) as string[]).includes(storage)) {
      // A new storage version is recorded as stored at once (the strategy's PrepareForUpdate).
      obj.status.storedVersions = [...((obj.status.storedVersions ?? []) as string[]), storage];
    }
  },
  validate(obj, ctx) {
    try {
      return validateCustomResourceDefinition(obj, ctx.operation === 'create' ? undefined : ctx.old);
    } catch (e) {
      if (e instanceof NotEmulatedCel) throw notEmulated(e.message);
      throw e;
    }
  },
});

/** The Warning a deprecated version's requests get: the CRD's own text or the server's default. */
function deprecationWarning(crd: Obj, version: Obj): string | undefined {
  if (!version.deprecated) return undefined;
  if (version.deprecationWarning !== undefined) return version.deprecationWarning;
  const { group, names } = crd.spec;
  const newer = ((crd.spec.versions ?? []) as Obj[])
    .filter((v) => v.served && !v.deprecated && compareKubeVersions(version.name, v.name) < 0)
    .map((v) => v.name as string)
    .sort((a, b) => compareKubeVersions(b, a));
  const base = `${group}/${version.name} ${names.kind} is deprecated`;
  return newer.length ? `${base}; use ${group}/${newer[0]} ${names.kind}` : base;
}

/** A served custom resource kind built from one CRD version. */
function customResourceType(crd: Obj, version: Obj): ResourceType {
  const spec = crd.spec;
  const names = spec.names;
  const schema = (version.schema?.openAPIV3Schema ?? {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  }) as Schema;
  const subresources = Object.keys(version.subresources ?? {});
  const apiVersion = `${spec.group}/${version.name}`;
  const storageApiVersion = `${spec.group}/${storageVersion(crd) ?? version.name}`;
  return {
    group: spec.group,
    version: version.name,
    resource: names.plural,
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    singular: names.singular ?? names.kind.toLowerCase(),
    namespaced: spec.scope === 'Namespaced',
    shortNames: names.shortNames,
    categories: names.categories,
    subresources,
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    custom: true,
    generation: true,
    // Every version reports the storage version's hash (17 #169).
    storageVersionHash: storageVersionHash(spec.group, storageVersion(crd) ?? version.name, names.kind),
    deprecationWarning: deprecationWarning(crd, version),
    // Conversion None: all versions share the stored objects; only apiVersion differs.
    toStored: (o) => ({ ...o, apiVersion: storageApiVersion }),
    fromStored: (o) => ({ ...o, apiVersion }),
    prune(obj) {
      const out: string[] = [];
      prune(obj, schema, '', out, true);
      return out;
    },
    defaults(obj) {
      applyDefaults(obj, schema);
    },
    validate(obj) {
      const { metadata: _m, ...rest } = obj;
      void _m;
      return validateSchema(
        rest,
        { ...schema, properties: { ...schema.properties, metadata: { type: 'object' } } },
        '',
      );
    },
  };
}

/**
 * The apiextensions controllers after a CRD is stored: naming (NamesAccepted, or a conflict with
 * another CRD of the group), then Established=False "Installing", then Established=True and the
 * kind served; each a separate write (01 #5 shows two MODIFIED events). A CRD whose names conflict
 * stays not Established and is not served (17 #175, #178).
 */
export function establish(
  crd: Obj,
  now: Date,
  write: (crd: Obj) => Obj,
  registry: Registry,
  sameGroup: Obj[],
): void {
  const t = rfc3339(now);
  const naming = acceptNames(crd, sameGroup, t);
  const approval = approvalCondition(crd, t);
  const withConditions = (conditions: (Condition | undefined)[]) => {
    const next = clone(crd);
    next.status = {
      ...next.status,
      conditions: conditions.filter(Boolean),
      acceptedNames: naming.acceptedNames,
    };
    return next;
  };
  if (!naming.accepted) {
    write(withConditions([naming.namesAccepted, establishedCondition('notAccepted', t), approval]));
    return;
  }
  const installing = write(withConditions([naming.namesAccepted, establishedCondition('installing', t)]));
  serve(installing, registry);
  write(withConditions([naming.namesAccepted, establishedCondition('established', t), approval]));
}

function serve(crd: Obj, registry: Registry): void {
  for (const v of crd.spec.versions ?? []) if (v.served) registry.add(customResourceType(crd, v));
}

/** An update of an Established CRD: the served versions follow the new spec. */
export function reestablish(crd: Obj, registry: Registry): void {
  const established = ((crd.status?.conditions ?? []) as Obj[]).some(
    (c) => c.type === 'Established' && c.status === 'True',
  );
  if (!established) return;
  unregister(crd, registry);
  serve(crd, registry);
}

/** Stops serving every version of the CRD's kind. */
export function unregister(crd: Obj, registry: Registry): void {
  for (const t of registry.all()) {
    if (
      t.custom &&
      t.group === crd.spec?.group &&
      t.resource === crd.spec?.names?.plural &&
      t.kind === crd.spec?.names?.kind
    ) {
      registry.remove(t.group, t.version, t.resource);
    }
  }
}
