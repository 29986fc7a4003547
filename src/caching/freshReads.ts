/**
 * Shares one read among the callers that ask for the same thing at the same time, without ever
 * answering older data than a read of their own would have given them.
 *
 * A caller that arrives while no read of its key is in flight starts one. A caller that arrives
 * while one is in flight cannot use it (its snapshot may predate the caller's request), so it
 * waits for the next read, which starts as soon as the current one settles and is shared by
 * everyone who arrived in the meantime. Every caller therefore gets a result read after it asked,
 * as with a query of its own, while under load the database sees a fraction of the queries.
 *
 * `load` must not depend on the caller beyond the key: callers sharing a key share the result.
 */
export class FreshReads<T> {
  private readonly inFlight = new Map<string, Promise<T>>();
  private readonly queued = new Map<string, Promise<T>>();

  read(key: string, load: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key);
    if (!running) return this.start(key, load);
    let next = this.queued.get(key);
    if (!next) {
      next = running.then(ignore, ignore).then(() => {
        this.queued.delete(key);
        return this.start(key, load);
      });
      this.queued.set(key, next);
    }
    return next;
  }

  private start(key: string, load: () => Promise<T>): Promise<T> {
    // An async wrapper turns a synchronous throw of `load` into a rejection like any other.
    const read = (async () => load())();
    this.inFlight.set(key, read);
    const settled = () => {
      if (this.inFlight.get(key) === read) this.inFlight.delete(key);
    };
    read.then(settled, settled);
    return read;
  }
}

function ignore(): void {}
