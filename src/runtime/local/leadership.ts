import type { Client } from 'pg';
import type { Logger } from '../../logging/logger';

/**
 * Who among the processes of `crondeck serve` on one database fires jobs. Exactly one leads at a
 * time; the others serve the API only and hand their changes to it through the database.
 */
export interface Leadership {
  /** Tries to lead at once (so a lone process leads from its first tick), then keeps trying. */
  start(onChange: (leading: boolean) => void): Promise<void>;
  isLeading(): boolean;
  /**
   * Whether this process still leads, asked before it fires: a process that was stalled (SIGSTOP,
   * a frozen machine) may have lost the lead meanwhile without having noticed yet.
   */
  confirm(): Promise<boolean>;
  /** Gives leadership up, so another process takes over at once. */
  stop(): Promise<void>;
}

/**
 * The embedded database serves one process only (its data directory is locked), so that process
 * leads. An advisory lock would prove nothing there: PGlite is one backend session, which would
 * be granted the lock twice.
 */
export function soleLeadership(): Leadership {
  let leading = false;
  return {
    async start(onChange) {
      leading = true;
      onChange(true);
    },
    isLeading: () => leading,
    confirm: async () => leading,
    async stop() {
      leading = false;
    },
  };
}

/** Arbitrary, fixed, and other than the migrations' key (store/migrate.ts). */
export const LEADER_LOCK_KEY = 7433_0002;

export interface AdvisoryLockLeadershipOptions {
  /** Opens a connection of its own (outside the pools): the lock lives as long as its session. */
  openSession: () => Promise<Client>;
  /** The lock: the leader's by default; the slot judge of a cluster's replicas takes another. */
  lockKey?: number;
  /** What the leader does, for its log lines. */
  role?: string;
  logger: Logger;
  /** How often a follower tries to take the lock; a dead leader is replaced within about this. */
  retryMs?: number;
}

/**
 * Leadership on a PostgreSQL server: the leader holds a session-level advisory lock on a
 * connection of its own. When the leader dies, its connection drops and the server releases the
 * lock; a follower, trying every few seconds, takes it. A leader whose connection fails stops
 * leading at once, since another process may be about to take over.
 */
export class AdvisoryLockLeadership implements Leadership {
  private session: Client | null = null;
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private onChange: (leading: boolean) => void = () => undefined;
  private attempt: Promise<void> = Promise.resolve();
  /** When the lock's session last answered (monotonic milliseconds). */
  private confirmedAt = 0;

  constructor(private readonly options: AdvisoryLockLeadershipOptions) {}

  async start(onChange: (leading: boolean) => void): Promise<void> {
    this.onChange = onChange;
    await this.tryToLead();
  }

  isLeading(): boolean {
    return this.leading;
  }

  /**
   * The session answered within two checks' time: the lock is still held. Otherwise (the process
   * was stalled, or the database is slow) it is asked again first.
   */
  async confirm(): Promise<boolean> {
    if (!this.leading) return false;
    if (performance.now() - this.confirmedAt <= 2 * this.retryMs()) return true;
    await this.attempt;
    if (this.leading && performance.now() - this.confirmedAt > 2 * this.retryMs()) await this.tryToLead();
    return this.leading;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.attempt;
    this.setLeading(false);
    const session = this.session;
    this.session = null;
    // Ending the session releases the lock.
    await session?.end().catch(() => undefined);
  }

  private tryToLead(): Promise<void> {
    this.attempt = this.attemptOnce().finally(() => this.scheduleRetry());
    return this.attempt;
  }

  private async attemptOnce(): Promise<void> {
    if (this.stopped) return;
    try {
      if (this.leading) {
        // A connection can die without a word (a cut network): look, so as to stop leading soon.
        await this.session?.query('SELECT 1');
        this.confirmedAt = performance.now();
        return;
      }
      const session = this.session ?? (await this.connect());
      const { rows } = await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
        this.options.lockKey ?? LEADER_LOCK_KEY,
      ]);
      if (rows[0]?.locked && !this.stopped && this.session === session) {
        this.confirmedAt = performance.now();
        this.options.logger.info(`leading: this process ${this.options.role ?? 'fires jobs'}`);
        this.setLeading(true);
      }
    } catch (error) {
      this.options.logger.warn('leader lock session failed; will try again', { err: error });
      this.dropSession();
    }
  }

  private async connect(): Promise<Client> {
    const session = await this.options.openSession();
    const lost = (error?: unknown) => {
      if (this.session !== session) return;
      if (this.leading) this.options.logger.warn('lost the leader lock with its connection', { err: error });
      this.dropSession();
      this.scheduleRetry();
    };
    session.on('error', lost);
    session.on('end', () => lost());
    this.session = session;
    return session;
  }

  private dropSession(): void {
    const session = this.session;
    this.session = null;
    this.setLeading(false);
    session?.end().catch(() => undefined);
  }

  /** A follower tries for the lock again; the leader checks that its session is alive. */
  private scheduleRetry(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tryToLead(), this.retryMs());
    this.timer.unref();
  }

  private retryMs(): number {
    return this.options.retryMs ?? 2000;
  }

  private setLeading(leading: boolean): void {
    if (this.leading === leading) return;
    this.leading = leading;
    this.onChange(leading);
  }
}
