import type { ObjectCache, V1Secret } from '@kubernetes/client-node';
import type { Logger } from '../../logging/logger';
import { statusOf } from '../../kube/apiErrors';
import type { ClusterClient } from '../../kube/clusterClient';
import { desiredTokenSecret, encodedToken, reportTokenLocation } from '../desired/reportTokens';

/** A ScheduledJob waiting for its key: reconciled again once the key is written (or the write failed). */
export interface TokenWaiter {
  namespace: string;
  name: string;
}

export interface TokenSecretsDeps {
  cluster: Pick<ClusterClient, 'createSecret' | 'patchSecret'>;
  secrets: ObjectCache<V1Secret>;
  logger: Logger;
  /** The key is in place: reconcile the ScheduledJob again. */
  written(waiter: TokenWaiter): void;
  /** The write failed: reconcile the ScheduledJob again later, with backoff. */
  failed(waiter: TokenWaiter): void;
  /** How long a batch gathers keys before it is written. */
  lingerMs?: number;
}

interface PendingShard {
  namespace: string;
  secretName: string;
  /** Key → base64 value, or null to remove the key. */
  changes: Map<string, string | null>;
  waiters: TokenWaiter[];
  /** Resolved when this batch is written (those who remove a key wait for it). */
  settled: Promise<void>;
  settle: () => void;
}

const shardId = (namespace: string, secretName: string) => `${namespace}/${secretName}`;

/**
 * Writes the report tokens' keys into the namespaces' shared Secrets, in batches: the keys asked
 * for within `lingerMs` (and while a write to the same Secret is in flight) go in one merge patch,
 * so that 5,000 ScheduledJobs created at once cost a handful of Secret writes, not 5,000.
 *
 * What is in place is read from the Secret watch's cache. Right after a write the cache may not
 * show it yet, so the values written are remembered until the watch brings that Secret again.
 */
export class TokenSecrets {
  private readonly pending = new Map<string, PendingShard>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly writtenNotYetSeen = new Map<string, Map<string, string | null>>();
  /** Keys (shard id, NUL, key) whose removal failed: `release` lets their jobs go without them. */
  private readonly removalsGivenUp = new Set<string>();

  constructor(private readonly deps: TokenSecretsDeps) {}

  /** Whether the job's key holds its token in the cluster. */
  inPlace(namespace: string, jobId: number, token: string): boolean {
    const { secretName, key } = reportTokenLocation(jobId);
    const value = encodedToken(token);
    const written = this.writtenNotYetSeen.get(shardId(namespace, secretName));
    if (written?.has(key)) return written.get(key) === value;
    return this.deps.secrets.get(secretName, namespace)?.data?.[key] === value;
  }

  /** Asks for the job's key; `waiter` is reconciled again once it is written. */
  request(namespace: string, jobId: number, token: string, waiter: TokenWaiter): void {
    const { secretName, key } = reportTokenLocation(jobId);
    const shard = this.shard(namespace, secretName);
    shard.changes.set(key, encodedToken(token));
    shard.waiters.push(waiter);
  }

  /**
   * Removes a deleted job's key. True when it is gone already (or its removal failed once, which is
   * logged and not retried: a key left behind names a job that is no more). Otherwise its removal is
   * asked for and `waiter` is reconciled again once the batch is written, so that no reconcile waits
   * on a batch gathering: deletions go at the pace of the API, not one batch per worker at a time.
   */
  release(namespace: string, jobId: number, waiter: TokenWaiter): boolean {
    const { secretName, key } = reportTokenLocation(jobId);
    const id = shardId(namespace, secretName);
    if (this.removalsGivenUp.delete(`${id}\u0000${key}`)) return true;
    const pending = this.pending.get(id)?.changes.get(key);
    const written = this.writtenNotYetSeen.get(id);
    const held =
      pending !== undefined
        ? pending !== null
        : written?.has(key)
          ? written.get(key) !== null
          : key in (this.deps.secrets.get(secretName, namespace)?.data ?? {});
    if (!held && pending === undefined) return true;
    const shard = this.shard(namespace, secretName);
    shard.changes.set(key, null);
    shard.waiters.push(waiter);
    return false;
  }

  /** The watch brought this Secret (or its deletion): from now on the cache says what is in place. */
  seen(secret: V1Secret): void {
    const { namespace = '', name = '' } = secret.metadata ?? {};
    this.writtenNotYetSeen.delete(shardId(namespace, name));
  }

  private shard(namespace: string, secretName: string): PendingShard {
    const id = shardId(namespace, secretName);
    let shard = this.pending.get(id);
    if (!shard) {
      let settle!: () => void;
      const settled = new Promise<void>((resolve) => (settle = resolve));
      shard = { namespace, secretName, changes: new Map(), waiters: [], settled, settle };
      this.pending.set(id, shard);
      const previous = this.inFlight.get(id) ?? Promise.resolve();
      // One write per Secret at a time: the next batch gathers meanwhile and goes after it.
      const write = previous
        .then(() => new Promise((linger) => setTimeout(linger, this.deps.lingerMs ?? 100)))
        .then(() => this.flush(id));
      this.inFlight.set(id, write);
      void write.finally(() => {
        if (this.inFlight.get(id) === write) this.inFlight.delete(id);
      });
    }
    return shard;
  }

  private async flush(id: string): Promise<void> {
    const shard = this.pending.get(id)!;
    this.pending.delete(id);
    const data = Object.fromEntries(shard.changes);
    try {
      await this.write(shard, data);
      const written = this.writtenNotYetSeen.get(id) ?? new Map<string, string | null>();
      for (const [key, value] of shard.changes) written.set(key, value);
      this.writtenNotYetSeen.set(id, written);
      for (const waiter of shard.waiters) this.deps.written(waiter);
    } catch (error) {
      this.deps.logger.warn('could not write report tokens; will retry', {
        secret: id,
        keys: shard.changes.size,
        err: error,
      });
      for (const [key, value] of shard.changes)
        if (value === null) this.removalsGivenUp.add(`${id}\u0000${key}`);
      for (const waiter of shard.waiters) this.deps.failed(waiter);
    } finally {
      shard.settle();
    }
  }

  private async write(shard: PendingShard, data: Record<string, string | null>): Promise<void> {
    const { namespace, secretName } = shard;
    const exists =
      this.deps.secrets.get(secretName, namespace) !== undefined ||
      this.writtenNotYetSeen.has(shardId(namespace, secretName));
    const additions = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== null)) as Record<
      string,
      string
    >;
    if (!exists && Object.keys(additions).length > 0) {
      try {
        await this.deps.cluster.createSecret(namespace, desiredTokenSecret(namespace, secretName, additions));
        return;
      } catch (error) {
        // Created meanwhile (the cache lags behind): add the keys to it instead.
        if (statusOf(error) !== 409) throw error;
      }
    }
    try {
      await this.deps.cluster.patchSecret(namespace, secretName, { data });
    } catch (error) {
      // Removing keys from a Secret that is gone already is done.
      if (statusOf(error) === 404 && Object.keys(additions).length === 0) return;
      throw error;
    }
  }
}
