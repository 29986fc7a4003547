import { ApiError } from './errors';
import type { Registry, ResourceType } from './resources';
import type { Obj } from './types';

export const VERSION_INFO = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.13',
  gitCommit: '63adf010aa20e104c0b7043b47f42f50c9f72b17',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.5',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/** A path under /apis for a group nobody serves: plain-text 404 like the real mux (01 #1). */
export class PlainNotFound extends Error {}

function resourceEntries(types: ResourceType[]): Obj[] {
  const out: Obj[] = [];
  for (const t of [...types].sort((a, b) => a.resource.localeCompare(b.resource))) {
    const e: Obj = {
      name: t.resource,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.verbs,
    };
    if (t.shortNames?.length) e.shortNames = t.shortNames;
    if (t.categories?.length) e.categories = t.categories;
    if (t.storageVersionHash) e.storageVersionHash = t.storageVersionHash;
    out.push(e);
    for (const s of [...t.subresources].sort()) {
      out.push(subresourceEntry(t, s));
    }
  }
  return out;
}

function subresourceEntry(t: ResourceType, sub: string): Obj {
  const base = { name: `${t.resource}/${sub}`, singularName: '', namespaced: t.namespaced };
  if (sub === 'status') return { ...base, kind: t.kind, verbs: ['get', 'patch', 'update'] };
  if (sub === 'binding') return { ...base, kind: 'Binding', verbs: ['create'] };
  if (sub === 'token')
    return {
      ...base,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    };
  if (sub === 'finalize') return { ...base, kind: 'Namespace', verbs: ['update'] };
  return { ...base, kind: t.kind, verbs: ['get'] };
}

/** The real server's group order in /apis (16 #3); CRD groups follow. */
const GROUP_ORDER = [
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
];

function ordered(groups: string[]): string[] {
  const rank = (g: string) => (GROUP_ORDER.includes(g) ? GROUP_ORDER.indexOf(g) : GROUP_ORDER.length);
  return [...groups].sort((a, b) => rank(a) - rank(b));
}

function groupEntry(registry: Registry, group: string): Obj {
  const versions = registry.groupVersions(group).map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions, preferredVersion: versions[0] };
}

/** /api, /apis, /apis/G, /api/v1, /apis/G/V — built from what the registry serves. */
export function discovery(
  registry: Registry,
  group: string,
  version: string,
  isCore: boolean,
  serverAddress: string,
  accept: string,
): Obj {
  const wantsAggregated = /as=APIGroupDiscoveryList/.test(accept);
  if (isCore && !version) {
    // client-go (helm, kubectl) asks /api and /apis for the aggregated form.
    if (wantsAggregated) return aggregated(registry, ['']);
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    };
  }
  if (!isCore && !group) {
    const groups = ordered(registry.groups().filter((g) => g !== ''));
    if (wantsAggregated) return aggregated(registry, groups);
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => groupEntry(registry, g)) };
  }
  if (!isCore && !registry.groups().includes(group)) throw new PlainNotFound();
  if (!version) return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(registry, group) };
  const types = registry.all().filter((t) => t.group === group && t.version === version);
  if (types.length === 0) {
    throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  }
  const list: Obj = {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: resourceEntries(types),
  };
  // The legacy /api/v1 list has no apiVersion (16 #4); group lists do.
  if (isCore) delete list.apiVersion;
  return list;
}

/** The content type of an aggregated discovery answer (clients check it before decoding). */
export const AGGREGATED_DISCOVERY_TYPE =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

function aggregated(registry: Registry, groups: string[]): Obj {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: groups.map((g) => ({
      metadata: { name: g, creationTimestamp: null },
      versions: registry.groupVersions(g).map((v) => ({
        version: v,
        resources: registry
          .all()
          .filter((t) => t.group === g && t.version === v)
          .map((t) => {
            const r: Obj = {
              resource: t.resource,
              responseKind: { group: g, version: v, kind: t.kind },
              scope: t.namespaced ? 'Namespaced' : 'Cluster',
              singularResource: t.singular,
              verbs: t.verbs,
            };
            if (t.shortNames?.length) r.shortNames = t.shortNames;
            if (t.categories?.length) r.categories = t.categories;
            if (t.subresources.length) {
              r.subresources = t.subresources.map((s) => {
                const e = subresourceEntry(t, s);
                return {
                  subresource: s,
                  responseKind: { group: e.group ?? g, version: e.version ?? v, kind: e.kind },
                  verbs: e.verbs,
                };
              });
            }
            return r;
          }),
        freshness: 'Current',
      })),
    })),
  };
}
