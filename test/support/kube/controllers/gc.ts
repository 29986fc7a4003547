import { deleteObject } from '../handlers/delete';
import { resourceKey, type Registry, type ResourceType } from '../resources';
import type { Store, WatchEventRecord } from '../store';
import { clone, type Obj, type OwnerReference } from '../types';

interface Located {
  type: ResourceType;
  obj: Obj;
}

function everything(store: Store, registry: Registry): Located[] {
  const out: Located[] = [];
  const seen = new Set<string>();
  for (const type of registry.all()) {
    const key = resourceKey(type);
    if (seen.has(key)) continue;
    seen.add(key);
    // Read as stored: what a pass changes it copies first (`owned`).
    for (const obj of store.peek(key)) out.push({ type, obj: obj as Obj });
  }
  return out;
}

/** A copy of a located object, to change and write back: the located one is the store's own. */
function owned({ type, obj }: Located): Located {
  return { type, obj: clone(obj) };
}

function removeFinalizer(store: Store, located: Located, finalizer: string): void {
  const { type, obj } = owned(located);
  const rest = (obj.metadata.finalizers as string[]).filter((f) => f !== finalizer);
  const key = resourceKey(type);
  if (rest.length === 0 && obj.metadata.deletionTimestamp) {
    store.remove(key, obj.metadata.namespace, obj.metadata.name);
    return;
  }
  obj.metadata.finalizers = rest;
  store.put(key, obj, 'MODIFIED');
}

/**
 * One pass of the garbage collector (kcm's, reduced to what 07 and 13 show): dependents of a
 * vanished owner are deleted in the background; an owner with `orphan` first strips its
 * ownerReference from every dependent; an owner with `foregroundDeletion` gets its dependents
 * deleted and goes once no blocking dependent is left. Returns whether it changed anything.
 */
function collectGarbageOnce(store: Store, registry: Registry, now: Date): boolean {
  const all = everything(store, registry);
  const byUid = new Map<string, Located>(all.map((l) => [l.obj.metadata.uid as string, l]));
  const dependents = (uid: string) =>
    all.filter((l) => (l.obj.metadata.ownerReferences ?? []).some((r: OwnerReference) => r.uid === uid));
  // Every dependent this pass can judge is dealt with in it: each is judged by its own owners,
  // which no change to another dependent affects (a dependent owning another is judged next pass).
  let collected = false;
  for (const dep of all) {
    const refs: OwnerReference[] = dep.obj.metadata.ownerReferences ?? [];
    if (refs.length === 0) continue;
    const live = refs.filter((r) => byUid.has(r.uid));
    const orphaning = live.filter(
      (r) =>
        byUid.get(r.uid)!.obj.metadata.finalizers?.includes('orphan') &&
        byUid.get(r.uid)!.obj.metadata.deletionTimestamp,
    );
    if (orphaning.length > 0) {
      const kept = refs.filter((r) => !orphaning.includes(r));
      const changed = owned(dep);
      if (kept.length) changed.obj.metadata.ownerReferences = kept;
      else delete changed.obj.metadata.ownerReferences;
      store.put(resourceKey(changed.type), changed.obj, 'MODIFIED');
      collected = true;
      continue;
    }
    const foreground = live.some((r) => {
      const o = byUid.get(r.uid)!.obj;
      return o.metadata.deletionTimestamp && o.metadata.finalizers?.includes('foregroundDeletion');
    });
    if ((live.length === 0 || foreground) && !dep.obj.metadata.deletionTimestamp) {
      deleteObject(store, dep.type, owned(dep).obj, 'Background', now);
      collected = true;
    }
  }
  // The owners' finalizers are judged on a pass that sees these changes.
  if (collected) return true;
  for (const owner of all) {
    const meta = owner.obj.metadata;
    if (!meta.deletionTimestamp || !meta.finalizers) continue;
    if (meta.finalizers.includes('orphan') && dependents(meta.uid).length === 0) {
      removeFinalizer(store, owner, 'orphan');
      return true;
    }
    if (meta.finalizers.includes('foregroundDeletion')) {
      const blocking = dependents(meta.uid).filter((d) =>
        (d.obj.metadata.ownerReferences as OwnerReference[]).some(
          (r) => r.uid === meta.uid && r.blockOwnerDeletion,
        ),
      );
      if (blocking.length === 0) {
        removeFinalizer(store, owner, 'foregroundDeletion');
        return true;
      }
    }
  }
  return false;
}

export function collectGarbage(store: Store, registry: Registry, now: () => Date): void {
  for (let i = 0; i < 1000 && collectGarbageOnce(store, registry, now()); i++);
}

/**
 * Whether a change can leave work for the garbage collector: a deletion, an object being deleted
 * (finalizers, orphan or foreground), or an object whose owner references name an owner that does
 * not exist (by kind, name and uid). Every other write leaves nothing to collect, so the emulator
 * runs a full pass (which reads every object) only after these: at thousands of objects a pass per
 * write would make the emulator, not the client under test, what a test measures.
 */
export function mayLeaveGarbage(store: Store, registry: Registry, e: WatchEventRecord): boolean {
  if (e.type === 'DELETED') return true;
  // An object being deleted that is still there leaves work only through the collector's own
  // finalizers; with others (a controller's) its dependents wait until it is gone.
  const finalizers: string[] = e.object.metadata.finalizers ?? [];
  if (
    e.object.metadata.deletionTimestamp &&
    (finalizers.includes('orphan') || finalizers.includes('foregroundDeletion'))
  )
    return true;
  const refs: OwnerReference[] = e.object.metadata.ownerReferences ?? [];
  if (JSON.stringify(refs) === JSON.stringify(e.previous?.metadata.ownerReferences ?? [])) return false;
  return refs.some((ref) => {
    const [group, version] = ref.apiVersion.includes('/') ? ref.apiVersion.split('/') : ['', ref.apiVersion];
    const type = registry
      .all()
      .find((t) => t.kind === ref.kind && t.group === group && t.version === version);
    if (!type) return true;
    const owner = store.get(resourceKey(type), type.namespaced ? e.namespace : undefined, ref.name);
    return owner?.metadata.uid !== ref.uid;
  });
}
