import { FreshReads } from './freshReads';

export interface Rendered<T> {
  value: T;
  /** Version of the list it was rendered from (listVersions.ts). */
  version: string;
  /** Clock times between which it holds, when it depends on the time (a job's next run). */
  validFrom?: number;
  validUntil?: number;
}

/**
 * Rendered answers of a versioned list, kept per key and reused while the list's version is
 * unchanged: a request then costs one primary-key read instead of the list's query and its
 * serialisation. Concurrent requests share their reads (FreshReads), and no answer is older than a
 * read of the caller's own would have been, since the version is read after the request came.
 */
export class VersionedRenders<T> {
  private readonly versions = new FreshReads<string>();
  private readonly renders = new FreshReads<Rendered<T>>();
  /** In the order they were rendered: the first is the one to drop. */
  private readonly rendered = new Map<string, Rendered<T>>();

  constructor(
    private readonly readVersion: () => Promise<string>,
    private readonly maxKeys = 64,
  ) {}

  /** `now` is the clock time, for answers that hold only for a while (`validFrom`, `validUntil`). */
  async get(key: string, render: () => Promise<Rendered<T>>, now = 0): Promise<T> {
    const cached = this.rendered.get(key);
    if (cached && now >= (cached.validFrom ?? -Infinity) && now < (cached.validUntil ?? Infinity)) {
      const version = await this.versions.read('version', this.readVersion);
      if (version === cached.version) return cached.value;
    }
    const fresh = await this.renders.read(key, render);
    this.rendered.delete(key);
    this.rendered.set(key, fresh);
    if (this.rendered.size > this.maxKeys) this.rendered.delete(this.rendered.keys().next().value!);
    return fresh.value;
  }
}
