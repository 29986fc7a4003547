import { deleteObject } from '../handlers/delete';
import { resourceKey, type Registry } from '../resources';
import type { Store } from '../store';
import { deepEqual, rfc3339, type Obj } from '../types';

const NS_KEY = '/namespaces';

function condition(type: string, status: string, reason: string, message: string, t: string): Obj {
  return { type, status, lastTransitionTime: t, reason, message };
}

/**
 * The namespace controller, reduced to what 15-namespace-deletion shows: delete the content of a
 * Terminating namespace, report what remains in five conditions, and remove the namespace once
 * nothing is left (one MODIFIED per change of the conditions, then DELETED).
 */
export function namespaceControllerPass(store: Store, registry: Registry, now: Date): boolean {
  for (const ns of store.list(NS_KEY)) {
    if (!ns.metadata.deletionTimestamp) continue;
    const name = ns.metadata.name as string;
    const remaining: Record<string, number> = {};
    const finalizers: Record<string, number> = {};
    const seen = new Set<string>();
    let changed = false;
    for (const type of registry.all()) {
      const key = resourceKey(type);
      if (!type.namespaced || seen.has(key) || type.notEmulated) continue;
      seen.add(key);
      for (const obj of store.list(key, name)) {
        if (!obj.metadata.deletionTimestamp) {
          changed = deleteObject(store, type, obj, 'Background', now).deleted || changed;
          const still = store.get(key, name, obj.metadata.name);
          if (!still) continue;
        }
        const q = type.group ? `${type.resource}.${type.group}` : type.resource;
        remaining[q] = (remaining[q] ?? 0) + 1;
        for (const f of (store.get(key, name, obj.metadata.name)?.metadata.finalizers ?? []) as string[]) {
          finalizers[f] = (finalizers[f] ?? 0) + 1;
        }
      }
    }
    const t = rfc3339(now);
    const has = Object.keys(remaining).length > 0;
    const hasFin = Object.keys(finalizers).length > 0;
    const conditions = [
      condition(
        'NamespaceDeletionDiscoveryFailure',
        'False',
        'ResourcesDiscovered',
        'All resources successfully discovered',
        t,
      ),
      condition(
        'NamespaceDeletionGroupVersionParsingFailure',
        'False',
        'ParsedGroupVersions',
        'All legacy kube types successfully parsed',
        t,
      ),
      condition(
        'NamespaceDeletionContentFailure',
        'False',
        'ContentDeleted',
        'All content successfully deleted, may be waiting on finalization',
        t,
      ),
      has
        ? condition(
            'NamespaceContentRemaining',
            'True',
            'SomeResourcesRemain',
            `Some resources are remaining: ${Object.entries(remaining)
              .map(([r, n]) => `${r} has ${n} resource instances`)
              .join(', ')}`,
            t,
          )
        : condition(
            'NamespaceContentRemaining',
            'False',
            'ContentRemoved',
            'All content successfully removed',
            t,
          ),
      hasFin
        ? condition(
            'NamespaceFinalizersRemaining',
            'True',
            'SomeFinalizersRemain',
            `Some content in the namespace has finalizers remaining: ${Object.entries(finalizers)
              .map(([f, n]) => `${f} in ${n} resource instances`)
              .join(', ')}`,
            t,
          )
        : condition(
            'NamespaceFinalizersRemaining',
            'False',
            'ContentHasNoFinalizers',
            'All content-preserving finalizers finished',
            t,
          ),
    ];
    const strip = (cs: Obj[] | undefined) => (cs ?? []).map(({ lastTransitionTime: _t, ...c }) => c);
    if (!deepEqual(strip(ns.status?.conditions), strip(conditions))) {
      ns.status = { ...ns.status, conditions };
      store.put(NS_KEY, ns, 'MODIFIED');
      return true;
    }
    if (!has) {
      store.remove(NS_KEY, undefined, name);
      return true;
    }
    if (changed) return true;
  }
  return false;
}
