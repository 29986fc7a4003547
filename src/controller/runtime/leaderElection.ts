import { type CoordinationV1Api, V1MicroTime, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from '../../logging/logger';

export interface LeaderElectionOptions {
  leases: Pick<CoordinationV1Api, 'readNamespacedLease' | 'createNamespacedLease' | 'replaceNamespacedLease'>;
  namespace: string;
  name: string;
  /** This replica's identity (its pod name). */
  identity: string;
  logger: Logger;
  /** How long a lease is good for without renewal: a dead leader is replaced after this. */
  leaseDurationMs?: number;
  /** A leader that cannot renew for this long steps down (before others may take over). */
  renewDeadlineMs?: number;
  /** How often to try to acquire or renew. */
  retryPeriodMs?: number;
  now?: () => number;
}

/**
 * Leader election on a coordination.k8s.io Lease, as client-go does it: the leader renews the
 * lease every retry period; the others take it over only after they have seen the same record
 * unchanged for a whole lease duration, measured on their own clock (so clock skew between nodes
 * does not matter). Every write is conditional on the resourceVersion read, so when two replicas
 * race, the API server lets exactly one win (409 for the other).
 */
export class LeaderElector {
  private leading = false;
  private observed: { record: string; at: number } | null = null;
  private lastRenewal = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;

  constructor(
    private readonly options: LeaderElectionOptions,
    private readonly callbacks: { onStartedLeading: () => void; onStoppedLeading: () => void },
  ) {
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.now = options.now ?? Date.now;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    void this.loop();
  }

  /** Stops trying; a leader releases the lease so that another replica takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.leading) return;
    this.setLeading(false);
    try {
      const lease = await this.read();
      if (lease?.spec?.holderIdentity === this.options.identity) {
        lease.spec.holderIdentity = undefined;
        await this.options.leases.replaceNamespacedLease({
          name: this.options.name,
          namespace: this.options.namespace,
          body: lease,
        });
      }
    } catch (error) {
      this.options.logger.warn('could not release the leader lease', { err: error });
    }
  }

  /** One acquire-or-renew step; exposed for tests, which drive it without timers. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.now();
    const lease = await this.read();
    if (!lease) {
      await this.options.leases.createNamespacedLease({
        namespace: this.options.namespace,
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.options.name, namespace: this.options.namespace },
          spec: this.spec(now, now, 0),
        },
      });
      return true;
    }
    const spec = lease.spec ?? {};
    const record = JSON.stringify([spec.holderIdentity, spec.renewTime, spec.leaseTransitions]);
    if (this.observed?.record !== record) this.observed = { record, at: now };
    const holder = spec.holderIdentity;
    const held = holder && holder !== this.options.identity;
    if (held && this.observed.at + (spec.leaseDurationSeconds ?? 15) * 1000 > now) return false;
    const ours = holder === this.options.identity;
    const transitions = (spec.leaseTransitions ?? 0) + (ours ? 0 : 1);
    lease.spec = this.spec(
      ours && spec.acquireTime ? new Date(spec.acquireTime).getTime() : now,
      now,
      transitions,
    );
    await this.options.leases.replaceNamespacedLease({
      name: this.options.name,
      namespace: this.options.namespace,
      body: lease,
    });
    return true;
  }

  private spec(acquiredAt: number, renewedAt: number, transitions: number): V1Lease['spec'] {
    return {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      // MicroTime: the API server wants exactly six fraction digits.
      acquireTime: new V1MicroTime(acquiredAt),
      renewTime: new V1MicroTime(renewedAt),
      leaseTransitions: transitions,
    };
  }

  private async loop(): Promise<void> {
    if (this.stopped) return;
    let renewed = false;
    try {
      renewed = await this.tryAcquireOrRenew();
    } catch (error) {
      // A conflict is a lost race; anything else (API server away) is retried the same way.
      const code = (error as { code?: number }).code;
      if (code !== 409)
        this.options.logger.warn('leader election: could not reach the lease', { err: error });
    }
    if (this.stopped) return;
    const now = this.now();
    if (renewed) {
      this.lastRenewal = now;
      if (!this.leading) this.setLeading(true);
    } else if (this.leading && now - this.lastRenewal >= this.renewDeadlineMs) {
      this.options.logger.error('leader election: lost the lease (not renewed in time); stepping down');
      this.setLeading(false);
    } else if (this.leading && !renewed && this.observedByOther()) {
      this.setLeading(false);
    }
    this.timer = setTimeout(() => void this.loop(), this.retryPeriodMs);
    this.timer.unref();
  }

  private observedByOther(): boolean {
    const holder = this.observed ? (JSON.parse(this.observed.record) as unknown[])[0] : undefined;
    return typeof holder === 'string' && holder !== this.options.identity;
  }

  private setLeading(leading: boolean): void {
    this.leading = leading;
    this.options.logger.info(leading ? 'became the leader' : 'no longer the leader', {
      identity: this.options.identity,
      lease: `${this.options.namespace}/${this.options.name}`,
    });
    if (leading) this.callbacks.onStartedLeading();
    else this.callbacks.onStoppedLeading();
  }

  private async read(): Promise<V1Lease | null> {
    try {
      return await this.options.leases.readNamespacedLease({
        name: this.options.name,
        namespace: this.options.namespace,
      });
    } catch (error) {
      if ((error as { code?: number }).code === 404) return null;
      throw error;
    }
  }
}
