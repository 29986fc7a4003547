import { deleteObject } from '../handlers/delete';
import { resourceKey, type Registry, type ResourceType } from '../resources';
import type { Store, WatchEventRecord } from '../store';
import { clone, type Obj, type OwnerReference } from '../types';

interface Located {
  type: ResourceType;
  obj: Obj;
}

/** Where an object is stored, found by its uid. */
interface Place {
  key: string;
  namespace: string | undefined;
  name: string;
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

function ownerUids(obj: Obj | undefined): string[] {
  return ((obj?.metadata.ownerReferences ?? []) as OwnerReference[]).map((r) => r.uid);
}

/**
 * The garbage collector (kcm's, reduced to what 07 and 13 show): dependents of a vanished owner are
 * deleted in the background; an owner with `orphan` first strips its ownerReference from every
 * dependent; an owner with `foregroundDeletion` gets its dependents deleted and goes once no
 * blocking dependent is left.
 *
 * Like kcm's, it keeps a graph of owners and dependents up to date from the changes it sees, and
 * judges only what a change touched: the changed object, its owners and its dependents. A pass over
 * every object per change made deleting thousands of objects cost the emulator seconds, and the
 * bench measured the emulator rather than its client. When the registered types change (a CRD
 * comes or goes, and its objects with it), the next pass judges every object.
 */
export class GarbageCollector {
  private readonly places = new Map<string, Place>();
  private readonly dependentsOf = new Map<string, Set<string>>();
  /** Uids whose objects, or whose dependents, the next pass judges. */
  private readonly touched = new Set<string>();
  /** The registered types the last pass saw; a change means a pass over every object. */
  private typesSeen = '';

  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
  ) {
    for (const key of store.resourceKeys()) {
      for (const obj of store.peek(key)) this.place(key, obj as Obj);
    }
    this.typesSeen = this.typeSignature();
    store.subscribe((e) => this.follow(e));
  }

  /** Whether a pass has anything to judge. */
  hasWork(): boolean {
    return this.touched.size > 0 || this.typesSeen !== this.typeSignature();
  }

  /** Judges everything at the next pass (an explicit run: `KubeEmulator.collectGarbage`). */
  touchEverything(): void {
    for (const uid of this.places.keys()) this.touched.add(uid);
  }

  /** Passes until one changes nothing. */
  collect(now: () => Date): void {
    for (let i = 0; i < 1000 && this.hasWork(); i++) {
      const signature = this.typeSignature();
      if (signature !== this.typesSeen) {
        this.typesSeen = signature;
        this.touchEverything();
      }
      const judged = [...this.touched];
      this.touched.clear();
      if (this.collectOnce(judged, now())) {
        // What this pass did not get to (an owner's finalizer) waits for the next one.
        for (const uid of judged) this.touched.add(uid);
      }
    }
  }

  private typeSignature(): string {
    return this.registry
      .all()
      .map((t) => resourceKey(t))
      .join(' ');
  }

  private follow(e: WatchEventRecord): void {
    const uid = e.object.metadata.uid as string;
    const before = ownerUids(e.previous);
    const after = e.type === 'DELETED' ? [] : ownerUids(e.object);
    for (const owner of before) {
      const dependents = this.dependentsOf.get(owner);
      dependents?.delete(uid);
      if (dependents?.size === 0) this.dependentsOf.delete(owner);
    }
    for (const owner of after) {
      let dependents = this.dependentsOf.get(owner);
      if (!dependents) this.dependentsOf.set(owner, (dependents = new Set()));
      dependents.add(uid);
    }
    if (e.type === 'DELETED') this.places.delete(uid);
    else this.place(e.resourceKey, e.object);
    if (!mayLeaveGarbage(this.store, this.registry, e)) return;
    this.touched.add(uid);
    for (const owner of [...before, ...ownerUids(e.object)]) this.touched.add(owner);
  }

  private place(key: string, obj: Obj): void {
    const { uid, namespace, name } = obj.metadata;
    this.places.set(uid as string, { key, namespace, name });
  }

  /** An object by uid as stored (not copied), if its type is registered. */
  private locate(uid: string, types: Map<string, ResourceType>): Located | undefined {
    const place = this.places.get(uid);
    const type = place && types.get(place.key);
    const obj = type && this.store.peekObject(place.key, place.namespace, place.name);
    return obj && obj.metadata.uid === uid ? { type, obj: obj as Obj } : undefined;
  }

  /**
   * One pass over what `judged` touched: the objects themselves and their dependents are judged
   * as dependents, the objects as owners. Returns whether it changed anything.
   */
  private collectOnce(judged: string[], now: Date): boolean {
    const types = new Map<string, ResourceType>();
    for (const type of this.registry.all()) {
      if (!types.has(resourceKey(type))) types.set(resourceKey(type), type);
    }
    const locate = (uid: string) => this.locate(uid, types);
    const dependents = (uid: string) =>
      [...(this.dependentsOf.get(uid) ?? [])].map(locate).filter((l): l is Located => l !== undefined);
    const candidates = new Map<string, Located>();
    for (const uid of judged) {
      const located = locate(uid);
      if (located) candidates.set(uid, located);
      for (const dependent of dependents(uid))
        candidates.set(dependent.obj.metadata.uid as string, dependent);
    }
    // Every dependent this pass can judge is dealt with in it: each is judged by its own owners,
    // which no change to another dependent affects (a dependent owning another is judged next pass).
    let collected = false;
    for (const dep of candidates.values()) {
      const refs: OwnerReference[] = dep.obj.metadata.ownerReferences ?? [];
      if (refs.length === 0) continue;
      const owners = new Map(refs.map((r) => [r.uid, locate(r.uid)]));
      const live = refs.filter((r) => owners.get(r.uid));
      const orphaning = live.filter((r) => {
        const o = owners.get(r.uid)!.obj;
        return o.metadata.finalizers?.includes('orphan') && o.metadata.deletionTimestamp;
      });
      if (orphaning.length > 0) {
        const kept = refs.filter((r) => !orphaning.includes(r));
        const changed = owned(dep);
        if (kept.length) changed.obj.metadata.ownerReferences = kept;
        else delete changed.obj.metadata.ownerReferences;
        this.store.put(resourceKey(changed.type), changed.obj, 'MODIFIED');
        collected = true;
        continue;
      }
      const foreground = live.some((r) => {
        const o = owners.get(r.uid)!.obj;
        return o.metadata.deletionTimestamp && o.metadata.finalizers?.includes('foregroundDeletion');
      });
      if ((live.length === 0 || foreground) && !dep.obj.metadata.deletionTimestamp) {
        deleteObject(this.store, dep.type, owned(dep).obj, 'Background', now);
        collected = true;
      }
    }
    // The owners' finalizers are judged on a pass that sees these changes.
    if (collected) return true;
    for (const uid of judged) {
      const owner = locate(uid);
      const meta = owner?.obj.metadata;
      if (!owner || !meta!.deletionTimestamp || !meta!.finalizers) continue;
      if (meta!.finalizers.includes('orphan') && dependents(uid).length === 0) {
        removeFinalizer(this.store, owner, 'orphan');
        return true;
      }
      if (meta!.finalizers.includes('foregroundDeletion')) {
        const blocking = dependents(uid).filter((d) =>
          (d.obj.metadata.ownerReferences as OwnerReference[]).some(
            (r) => r.uid === uid && r.blockOwnerDeletion,
          ),
        );
        if (blocking.length === 0) {
          removeFinalizer(this.store, owner, 'foregroundDeletion');
          return true;
        }
      }
    }
    return false;
  }
}

/**
 * Whether a change can leave work for the garbage collector: a deletion, an object being deleted
 * (finalizers, orphan or foreground), or an object whose owner references name an owner that does
 * not exist (by kind, name and uid). Every other write leaves nothing to collect, so the emulator
 * runs a full pass (which reads every object) only after these: at thousands of objects a pass per
 * write would make the emulator, not the client under test, what a test measures.
 */
function mayLeaveGarbage(store: Store, registry: Registry, e: WatchEventRecord): boolean {
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
