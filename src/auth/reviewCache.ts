/** How long a review's answer is kept, and how many are. */
export interface ReviewCacheOptions {
  /** 0 keeps none (each request is reviewed; concurrent identical ones still share one review). */
  ttlMs: number;
  maxEntries: number;
  /** Milliseconds, monotonic in practice (tests pass their own). */
  now?: () => number;
}

/**
 * Answers of the cluster's reviews, reused for `ttlMs` (SERVICE_AUTH_CACHE_SECONDS): a dashboard
 * polling every few seconds then costs one review per user and question per TTL, and a revoked
 * permission or token stops working within the TTL. Bounded: past `maxEntries`, the answer used
 * longest ago goes. Identical reviews asked while one is in flight share it. A review that fails
 * (the API server down or slow) is never kept: the next request asks again.
 */
export class ReviewCache<V> {
  private readonly kept = new Map<string, { value: V; until: number }>();
  private readonly inFlight = new Map<string, Promise<V>>();
  private readonly now: () => number;

  constructor(private readonly options: ReviewCacheOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  async get(key: string, review: () => Promise<V>): Promise<V> {
    const kept = this.kept.get(key);
    if (kept) {
      this.kept.delete(key);
      if (kept.until > this.now()) {
        // Used now: the last to go.
        this.kept.set(key, kept);
        return kept.value;
      }
    }
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const asked = review().then(
      (value) => {
        this.inFlight.delete(key);
        this.keep(key, value);
        return value;
      },
      (error: unknown) => {
        this.inFlight.delete(key);
        throw error;
      },
    );
    this.inFlight.set(key, asked);
    return asked;
  }

  private keep(key: string, value: V): void {
    if (this.options.ttlMs <= 0) return;
    this.kept.set(key, { value, until: this.now() + this.options.ttlMs });
    while (this.kept.size > this.options.maxEntries) this.kept.delete(this.kept.keys().next().value!);
  }
}
