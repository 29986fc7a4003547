/**
 * The controller's queue of objects to reconcile, keyed by `namespace/name`, with the guarantees of
 * client-go's rate-limited work queue that a level-triggered reconciler relies on:
 * - a key waiting in the queue is there once, however many events asked for it;
 * - a key is never handed to two workers at once: added while being processed, it is queued again
 *   when that processing is done;
 * - a key that failed waits longer each time (per-key exponential backoff), and `forget` resets it
 *   after a success, so one broken object never hot-loops nor slows the others.
 */
export interface WorkQueueOptions {
  /** First retry delay of a failing key. */
  baseDelayMs?: number;
  /** Longest retry delay. */
  maxDelayMs?: number;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  /** Keys added while being processed: queued again by `done`. */
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, NodeJS.Timeout>();
  private readonly waiters: ((key: string | null) => void)[] = [];
  private shuttingDown = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(options: WorkQueueOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 200;
    this.maxDelayMs = options.maxDelayMs ?? 5 * 60_000;
  }

  /** Queues `key` now (an event, a resync). */
  add(key: string): void {
    if (this.shuttingDown) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.queued.add(key);
    this.queue.push(key);
  }

  /** Queues `key` after `delayMs` (a requeue the reconciler asked for, e.g. the next run time). */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const pending = this.delayed.get(key);
    if (pending) clearTimeout(pending);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.delayed.set(key, timer);
  }

  /** Queues `key` after its backoff: base × 2^(failures so far), capped. */
  addRateLimited(key: string): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** failures);
    this.addAfter(key, delay);
    return delay;
  }

  /** Resets the backoff of `key` (it reconciled cleanly). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process, waiting for one; null once the queue shuts down. */
  get(): Promise<string | null> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.queued.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(null);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks `key` processed; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
  }

  /** Keys waiting now (for the work-queue depth metric). */
  get length(): number {
    return this.queue.length;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const timer of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    for (const waiter of this.waiters.splice(0)) waiter(null);
  }
}
