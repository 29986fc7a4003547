import { ApiError } from './errors';

/**
 * A test's fault injection: the answer a real kube-apiserver v1.32 gives to lists and watches of a
 * resource whose watch cache is not ready yet, as right after its CRD is established
 * (ResilientWatchCacheInitialization, on by default): 429 `TooManyRequests` "storage is
 * (re)initializing" with `details.retryAfterSeconds: 1` and, from the same value, a
 * `Retry-After: 1` header. The recorded transcripts hold no such answer (the recorder waited for
 * every CRD to serve); its shape is apimachinery's NewTooManyRequests.
 */
export class StorageInitializing {
  private readonly pending = new Map<string, number>();

  /** The next `count` lists and watches of `resource` (a plural, e.g. `scheduledjobs`) get the 429. */
  add(resource: string, count: number): void {
    this.pending.set(resource, (this.pending.get(resource) ?? 0) + count);
  }

  /** The 429 to answer this request with, or null. Only the watch cache answers it: lists and watches. */
  take(verb: string, resource: string): ApiError | null {
    const left = this.pending.get(resource) ?? 0;
    if (left === 0 || !['list', 'watch'].includes(verb)) return null;
    this.pending.set(resource, left - 1);
    return new ApiError(429, 'TooManyRequests', 'storage is (re)initializing', { retryAfterSeconds: 1 });
  }
}
