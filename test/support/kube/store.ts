import { randomUUID } from 'node:crypto';
import { clone, type Obj } from './types';

/** One change as a watch sees it. */
export interface WatchEventRecord {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resourceKey: string;
  namespace: string | undefined;
  object: Obj;
  /** The object before this change (label-selector watches need it to send DELETED on leaving). */
  previous?: Obj;
}

type Listener = (e: WatchEventRecord) => void;

/**
 * All objects, one global resourceVersion counter (like etcd's revision), and the history of
 * changes that watches replay from. `compact()` plays etcd's compactor: watches from before the
 * compaction point get the in-stream 410 (06-watch #29).
 */
export class Store {
  private rv = 0;
  private readonly objects = new Map<string, Map<string, Obj>>();
  private readonly history: WatchEventRecord[] = [];
  private readonly listeners = new Set<Listener>();
  /** Oldest rv the watch cache can replay from; older watches get the in-stream 410. */
  private oldest = 0;
  /** etcd's compaction point: continue tokens and Exact lists from before it get HTTP 410. */
  private compacted = 0;

  currentRv(): number {
    return this.rv;
  }

  oldestRv(): number {
    return this.oldest;
  }

  compactedRv(): number {
    return this.compacted;
  }

  nextRv(): number {
    this.rv += 1;
    return this.rv;
  }

  newUid(): string {
    return randomUUID();
  }

  private bucket(resourceKey: string): Map<string, Obj> {
    let b = this.objects.get(resourceKey);
    if (!b) {
      b = new Map();
      this.objects.set(resourceKey, b);
    }
    return b;
  }

  get(resourceKey: string, namespace: string | undefined, name: string): Obj | undefined {
    const o = this.bucket(resourceKey).get(`${namespace ?? ''}/${name}`);
    return o && clone(o);
  }

  /** Objects sorted by namespace then name (the real server's list order: etcd key order). */
  list(resourceKey: string, namespace?: string): Obj[] {
    const out: Obj[] = [];
    for (const [key, o] of this.bucket(resourceKey)) {
      if (namespace === undefined || key.startsWith(`${namespace}/`)) out.push(o);
    }
    // Byte order, like etcd keys (02-cr #28: unknown-default before unknown-ignore).
    out.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
    return out.map((o) => clone(o));
  }

  /**
   * The stored objects of a resource as they are, unsorted and not copied: for a reader that only
   * looks (the garbage collector's pass over every object) and copies what it changes. At 10,000
   * objects a copy of each per pass made the emulator, not its client, what the bench measured.
   */
  peek(resourceKey: string): Iterable<Readonly<Obj>> {
    return this.bucket(resourceKey).values();
  }

  /** One stored object as it is, not copied: for a reader that only looks (the garbage collector). */
  peekObject(resourceKey: string, namespace: string | undefined, name: string): Readonly<Obj> | undefined {
    return this.objects.get(resourceKey)?.get(`${namespace ?? ''}/${name}`);
  }

  /** Writes an object with a fresh resourceVersion and records the change. */
  put(resourceKey: string, object: Obj, type: 'ADDED' | 'MODIFIED'): Obj {
    const ns = object.metadata.namespace as string | undefined;
    const key = `${ns ?? ''}/${object.metadata.name}`;
    const previous = this.bucket(resourceKey).get(key);
    const stored = clone(object);
    const rv = this.nextRv();
    stored.metadata.resourceVersion = String(rv);
    this.bucket(resourceKey).set(key, stored);
    this.emit({
      rv,
      type,
      resourceKey,
      namespace: ns,
      object: clone(stored),
      previous: previous && clone(previous),
    });
    return clone(stored);
  }

  /** Removes an object; the DELETED event carries it as last stored with a new rv (README: finalizers). */
  remove(resourceKey: string, namespace: string | undefined, name: string): Obj | undefined {
    const key = `${namespace ?? ''}/${name}`;
    const previous = this.bucket(resourceKey).get(key);
    if (!previous) return undefined;
    this.bucket(resourceKey).delete(key);
    const rv = this.nextRv();
    const gone = clone(previous);
    gone.metadata.resourceVersion = String(rv);
    this.emit({ rv, type: 'DELETED', resourceKey, namespace, object: gone, previous: clone(previous) });
    return gone;
  }

  resourceKeys(): string[] {
    return [...this.objects.keys()];
  }

  /** Changes after `rv` for one resource, oldest first. */
  since(resourceKey: string, rv: number): WatchEventRecord[] {
    return this.history.filter((e) => e.resourceKey === resourceKey && e.rv > rv).map((e) => clone(e));
  }

  /**
   * etcd compaction: old continue tokens and Exact lists expire, but the watch cache still serves
   * watches from before it (06-watch #32–#36).
   */
  compact(): void {
    this.compacted = this.rv;
  }

  /** The watch cache forgets history up to now (what it holds starts at apiserver start, 06 #29). */
  forgetHistory(): void {
    this.oldest = this.rv;
    this.history.length = 0;
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: WatchEventRecord): void {
    this.history.push(e);
    for (const fn of [...this.listeners]) fn(clone(e));
  }
}

function keyOf(o: Obj): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}
