import type { Pool } from 'pg';
import type { ListChanges } from '../store/listChangeFeed';
import { readListVersion, type VersionedList } from '../store/listVersions';
import { FreshReads } from './freshReads';

export interface Rendered<T> {
  value: T;
  /** Version of the list it was rendered from (listVersions.ts). */
  version: string;
  /** Clock times between which it holds, when it depends on the time (a job's next run). */
  validFrom?: number;
  validUntil?: number;
}

/** A rendering as kept: with the changes of its list seen before its read was sent. */
interface Kept<T> extends Rendered<T> {
  seen: number | null;
}

/**
 * How current a read must be. `current`: it shows every write committed before the request came,
 * whoever wrote it. `recent`: every write of this process too, but one that another process (a
 * replica, the controller, a script) committed in the last few milliseconds may be missing
 * (`ListChanges.caughtUpRecently`, `SERVICE_READ_STALENESS_MS`): what the API answers unless the
 * request says `Cache-Control: no-cache` (http/readFreshness.ts).
 */
export type ReadFreshness = 'current' | 'recent';

export interface VersionedRendersOptions {
  list: VersionedList;
  pool: Pool;
  /** The server's notifications of list changes, when the service listens for them. */
  changes: ListChanges | null;
  /** Renderings kept; past this, the one rendered longest ago is dropped. */
  maxKeys?: number;
}

/**
 * Rendered answers of a versioned list, kept per key and reused while the list is unchanged: a
 * request then costs no query of the list and no serialisation. No `current` answer is older than
 * a read of the caller's own would have been. Either the list's version is read after the request came
 * (shared by the requests that arrive meanwhile: FreshReads), or, when the service listens for the
 * server's notifications, no change of the list has been seen since the kept rendering was read and
 * every change committed before the request is known to have been seen (`ListChanges`): a round
 * trip that the server does nothing for, instead of a read. A `recent` read whose kept rendering
 * is unchanged by every change seen, when the last such round trip is recent enough
 * (`ListChanges.caughtUpRecently`), needs neither.
 */
export class VersionedRenders<T> {
  private readonly versions = new FreshReads<{ value: string; seen: number | null }>();
  private readonly renders = new FreshReads<Kept<T>>();
  /** In the order they were rendered: the first is the one to drop. */
  private readonly rendered = new Map<string, Kept<T>>();
  private readonly maxKeys: number;

  constructor(private readonly options: VersionedRendersOptions) {
    this.maxKeys = options.maxKeys ?? 64;
  }

  /**
   * The kept rendering of `key` when a `recent` read may answer it at once, with no round trip;
   * undefined when it must be proven or read (`get`). `now` as for `get`.
   */
  recent(key: string, now = 0): Rendered<T> | undefined {
    const kept = this.rendered.get(key);
    const { changes, list } = this.options;
    if (!kept || !changes || kept.seen === null || !holdsAt(kept, now)) return undefined;
    return changes.seen(list) === kept.seen && changes.caughtUpRecently() ? kept : undefined;
  }

  /** `now` is the clock time, for answers that hold only for a while (`validFrom`, `validUntil`). */
  async get(
    key: string,
    render: () => Promise<Rendered<T>>,
    now = 0,
    freshness: ReadFreshness = 'current',
  ): Promise<T> {
    if (freshness === 'recent') {
      const recent = this.recent(key, now);
      if (recent) return recent.value;
    }
    const kept = this.rendered.get(key);
    if (kept && holdsAt(kept, now)) {
      if (await this.unchangedSince(kept.seen)) return kept.value;
      const { value: version, seen } = await this.versions.read('version', () =>
        this.withSeen(() => this.readVersion()),
      );
      if (version === kept.version) {
        // Unchanged up to that read: a later proof may start from what was seen before it.
        if (seen !== null && (kept.seen === null || seen > kept.seen)) kept.seen = seen;
        return kept.value;
      }
    }
    const fresh = await this.renders.read(key, async () => {
      const { value, seen } = await this.withSeen(render);
      return { ...value, seen };
    });
    this.rendered.delete(key);
    this.rendered.set(key, fresh);
    if (this.rendered.size > this.maxKeys) this.rendered.delete(this.rendered.keys().next().value!);
    return fresh.value;
  }

  private readVersion(): Promise<string> {
    return readListVersion(this.options.pool, this.options.list);
  }

  /**
   * Runs `read` with what had been seen of the list's changes before it was sent, so that any
   * change its snapshot misses is seen after that number: `seen` then moves.
   */
  private async withSeen<R>(read: () => Promise<R>): Promise<{ value: R; seen: number | null }> {
    const { changes, list } = this.options;
    const seen = changes ? changes.seen(list) : null;
    return { value: await read(), seen };
  }

  /** Whether the list is known unchanged since `seen`, up to every change committed before now. */
  private async unchangedSince(seen: number | null): Promise<boolean> {
    const { changes, list } = this.options;
    if (!changes || seen === null) return false;
    return (await changes.caughtUp()) && changes.seen(list) === seen;
  }
}

/** Whether a rendering holds at clock time `now` (one that depends on the time holds for a while). */
function holdsAt(rendered: Rendered<unknown>, now: number): boolean {
  return now >= (rendered.validFrom ?? -Infinity) && now < (rendered.validUntil ?? Infinity);
}
