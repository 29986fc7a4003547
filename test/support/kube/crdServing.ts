/**
 * What the apiextensions server does once a CRD is stored: the naming controller accepts its names
 * (or reports a conflict with another CRD of the group, crdNaming.ts), the establishing controller
 * marks it Established, and each served version becomes a kind the emulator serves. All versions
 * share one storage (conversion None: only apiVersion changes, 17 #171–#173), report the storage
 * version's hash, and a deprecated version warns on every request.
 */
import { storageVersionHash } from './builtins/common';
import { acceptNames, approvalCondition, establishedCondition, type Condition } from './crdNaming';
import { customResourceType } from './customResources/customResourceType';
import { compareKubeVersions } from './kubeVersions';
import type { Registry, ResourceType } from './resources';
import { clone, rfc3339, type Obj } from './types';

function storageVersion(crd: Obj): string | undefined {
  return ((crd.spec?.versions ?? []) as Obj[]).find((v) => v.storage)?.name;
}

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

/** One served version of a CRD's kind: the custom resource type, seen through this version. */
function servedVersion(crd: Obj, version: Obj): ResourceType {
  const base = customResourceType(crd, version);
  const storage = storageVersion(crd) ?? version.name;
  const apiVersion = `${crd.spec.group}/${version.name}`;
  const storageApiVersion = `${crd.spec.group}/${storage}`;
  return {
    ...base,
    storageVersionHash: storageVersionHash(crd.spec.group, storage, crd.spec.names.kind),
    deprecationWarning: deprecationWarning(crd, version),
    toStored: (o) => ({ ...(base.toStored ? base.toStored(o) : o), apiVersion: storageApiVersion }),
    fromStored: (o) => ({ ...(base.fromStored ? base.fromStored(o) : o), apiVersion }),
  };
}

function serve(crd: Obj, registry: Registry): void {
  for (const v of crd.spec.versions ?? []) if (v.served) registry.add(servedVersion(crd, v));
}

/**
 * The controllers after a CRD's create: naming, then Established=False "Installing", then
 * Established=True and the kind served, each a separate write (01 #5 shows two MODIFIED events).
 * A CRD whose names conflict stays not Established and is not served (17 #175, #178).
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
  serve(write(withConditions([naming.namesAccepted, establishedCondition('installing', t)])), registry);
  write(withConditions([naming.namesAccepted, establishedCondition('established', t), approval]));
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

/** An updated, Established CRD serves its new versions and schemas from then on. */
export function reestablish(crd: Obj, registry: Registry): void {
  const established = ((crd.status?.conditions ?? []) as Obj[]).some(
    (c) => c.type === 'Established' && c.status === 'True',
  );
  if (!established) return;
  unregister(crd, registry);
  serve(crd, registry);
}
