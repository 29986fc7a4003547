import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import type { LogFields, Logger } from '../logging/logger';
import {
  claimDueAlerts,
  markAlertFailed,
  markAlertsDelivered,
  type OutboxAlert,
  pruneFinishedAlerts,
  releaseAlertClaim,
  scheduleAlertRetry,
} from '../store/alerts';
import type { DeliveryOutcome } from './deliveryOutcome';

/**
 * Waits before the 2nd, 3rd, ... attempt: five attempts over about 36 minutes, long enough to ride
 * out a receiver's restart or a short outage, short enough that a late alert is still news.
 */
const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 5 * 60_000, 30 * 60_000];
/** A receiver asking for more time (Retry-After on a retried answer) is given at most this. */
const MAX_RETRY_AFTER_MS = 60 * 60_000;
/** How long a claim keeps other workers away from an alert; longer than any send can take. */
export const DEFAULT_LEASE_MS = 60_000;
/**
 * Sends one destination (a webhook's host, the SMTP server) may have in flight at once: a receiver
 * that takes every request and never answers then holds a quarter of the worker's sends until they
 * time out, not all of them, and the alerts of every other destination go out meanwhile. Four, not
 * fewer, because a burst to one healthy receiver (every job's alerts to one chat) goes out at the
 * pace of this many requests at a time: two halved that burst's throughput in the alerts bench.
 */
export const DEFAULT_PER_DESTINATION_CONCURRENCY = 4;
/**
 * How often a claim may look past a destination it filled, for the alerts queued behind that
 * destination's own: passing over a long queue reads all of it, and a busy one fills every look.
 */
const LOOK_PAST_EVERY_MS = 1000;
const PRUNE_EVERY_MS = 60 * 60_000;
/** After a pruning pass that failed (the database away): minutes, as retention does, not a whole period. */
const PRUNE_RETRY_MS = 5 * 60_000;
const DAY_MS = 24 * 60 * 60_000;

export interface OutboxWorkerOptions {
  pool: Pool;
  clock: Clock;
  logger: Logger;
  deliver: (alert: OutboxAlert, stop: AbortSignal) => Promise<DeliveryOutcome>;
  /** Names this worker's claims; unique per process so replicas never share one. */
  workerId?: string;
  /** How often the outbox is looked at without a wake-up (retries, other replicas' rows). */
  pollIntervalMs?: number;
  /** How long a claim keeps other workers away; longer than any send can take. */
  leaseMs?: number;
  /** Alerts sent at the same time. */
  concurrency?: number;
  /** Alerts sent at the same time to one destination (`OutboxAlert.destinationKey`). */
  perDestinationConcurrency?: number;
  retryDelaysMs?: readonly number[];
  /** How long `stop()` lets sends in progress finish before cutting them off. */
  stopGraceMs?: number;
  /** Delivered and failed alerts are deleted after this many days. */
  retentionDays?: number;
}

/**
 * Delivers the alert outbox. Rows are claimed with a lease, sent concurrently (a few at a time per
 * destination, so that a slow one cannot take every send), and their outcome
 * written back: delivered rows in batches (one UPDATE for many), failures one by one with the next
 * attempt scheduled by backoff. The scheduler never waits for any of this; it only calls `wake()`
 * after recording an execution.
 */
export class OutboxWorker {
  private readonly workerId: string;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly perDestination: number;
  /** The alerts being sent, by id: what each destination has in flight. */
  private readonly sending = new Map<number, OutboxAlert>();
  private readonly retryDelaysMs: readonly number[];
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly stopping = new AbortController();
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  /**
   * The last claim was full, or left a destination at its limit: more rows are probably due as soon
   * as a send finishes.
   */
  private moreDue = false;
  private deliveredIds: number[] = [];
  private flushing: Promise<void> | null = null;
  private pruning: Promise<void> | null = null;
  private lastClaimWarning = -Infinity;
  /** When a claim last looked past a destination it filled (`performance.now()`: a cost, not a schedule). */
  private lastLookPast = -Infinity;
  private lastPrune: number;

  constructor(private readonly options: OutboxWorkerOptions) {
    this.workerId = options.workerId ?? `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
    this.pollIntervalMs = options.pollIntervalMs ?? 2000;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.concurrency = options.concurrency ?? 16;
    this.perDestination = options.perDestinationConcurrency ?? DEFAULT_PER_DESTINATION_CONCURRENCY;
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.lastPrune = options.clock.now().getTime();
  }

  /** Attempts an alert gets in all. */
  get maxAttempts(): number {
    return this.retryDelaysMs.length + 1;
  }

  start(): void {
    this.running = true;
    this.wake();
  }

  /** Looks at the outbox now (new alerts were committed). Cheap to call often: calls coalesce. */
  wake(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
    });
  }

  /** Stops claiming, lets sends in progress finish (or cuts them off after the grace), saves outcomes. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearTimeout(this.timer);
    await this.pumping;
    const all = Promise.all(this.inFlight.values());
    const grace = new Promise<'grace over'>((resolve) =>
      setTimeout(() => resolve('grace over'), this.options.stopGraceMs ?? 5000).unref(),
    );
    if ((await Promise.race([all, grace])) === 'grace over') {
      this.stopping.abort();
      await all;
    }
    await this.flushing;
    this.flushDelivered();
    await Promise.all([this.flushing, this.pruning]);
  }

  private async pump(): Promise<void> {
    do {
      this.pumpAgain = false;
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) break;
      const now = this.options.clock.now();
      // As the claim counts them: sends that finish while it runs do not change its allowances.
      const sending = [...this.sending.values()];
      let claimed: OutboxAlert[];
      try {
        claimed = await claimDueAlerts(this.options.pool, {
          now,
          leaseUntil: new Date(now.getTime() + this.leaseMs),
          workerId: this.workerId,
          limit: free,
          destinations: { perDestination: this.perDestination, inFlight: sending },
        });
      } catch (error) {
        // Every poll fails while the database is away: say so once a minute, not every poll.
        if (now.getTime() - this.lastClaimWarning >= 60_000) {
          this.lastClaimWarning = now.getTime();
          this.options.logger.warn('could not read the alert outbox; will try again', { err: error });
        }
        break;
      }
      for (const alert of claimed) this.launch(alert);
      const sends = sendsByDestination([...sending, ...claimed]);
      const full = (key: string) => (sends.get(key) ?? 0) >= this.perDestination;
      // A destination at its limit may have due alerts the claim passed over: one of its sends
      // finishing makes room for them.
      this.moreDue = claimed.length === free || [...sends.keys()].some(full);
      // The claim looks at the oldest alerts only: a destination it just filled may have hidden
      // others' behind its own queue. The next claim passes over it.
      const filled = claimed.some((alert) => full(alert.destinationKey));
      if (filled && claimed.length < free && performance.now() - this.lastLookPast >= LOOK_PAST_EVERY_MS) {
        this.lastLookPast = performance.now();
        this.pumpAgain = true;
      }
    } while (this.pumpAgain && this.running);
    this.arm();
  }

  private arm(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.flushDelivered();
      this.pruneNow();
      this.wake();
    }, this.pollIntervalMs);
    this.timer.unref();
  }

  private launch(alert: OutboxAlert): void {
    this.sending.set(alert.id, alert);
    const done = this.attempt(alert).finally(() => {
      this.inFlight.delete(alert.id);
      this.sending.delete(alert.id);
      if (this.moreDue) this.wake();
    });
    this.inFlight.set(alert.id, done);
  }

  private async attempt(alert: OutboxAlert): Promise<void> {
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.options.deliver(alert, this.stopping.signal);
    } catch (error) {
      outcome = { status: 'retry', error: error instanceof Error ? error.message : String(error) };
    }
    try {
      await this.record(alert, outcome);
    } catch (error) {
      // The lease runs out and the alert is tried again: at least once, never lost.
      this.options.logger.warn('could not record the outcome of an alert', {
        ...describe(alert),
        err: error,
      });
    }
  }

  private async record(alert: OutboxAlert, outcome: DeliveryOutcome): Promise<void> {
    const { pool, clock, logger } = this.options;
    const claim = { id: alert.id, workerId: this.workerId, attempts: alert.attempts };
    switch (outcome.status) {
      case 'delivered':
        logger.debug('alert delivered', { ...describe(alert), attempt: alert.attempts });
        this.deliveredIds.push(alert.id);
        this.flushDelivered();
        return;
      case 'interrupted':
        await releaseAlertClaim(pool, claim);
        return;
      case 'rejected':
        logger.error('alert delivery failed; not retried', {
          ...describe(alert),
          attempt: alert.attempts,
          error: outcome.error,
        });
        await markAlertFailed(pool, claim, clock.now(), outcome.error);
        return;
      case 'retry': {
        if (alert.attempts >= this.maxAttempts) {
          logger.error('alert delivery failed; giving up', {
            ...describe(alert),
            attempt: alert.attempts,
            error: outcome.error,
          });
          await markAlertFailed(pool, claim, clock.now(), outcome.error);
          return;
        }
        const backoff = this.retryDelaysMs[alert.attempts - 1] ?? this.retryDelaysMs.at(-1) ?? 0;
        const delay = Math.max(backoff, Math.min(outcome.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
        logger.warn('alert delivery failed; will retry', {
          ...describe(alert),
          attempt: alert.attempts,
          error: outcome.error,
          retryInMs: delay,
        });
        await scheduleAlertRetry(pool, claim, new Date(clock.now().getTime() + delay), outcome.error);
        return;
      }
    }
  }

  /** Group commit: deliveries that finish while one UPDATE runs go out together in the next. */
  private flushDelivered(): void {
    if (this.flushing || this.deliveredIds.length === 0) return;
    const ids = this.deliveredIds;
    this.deliveredIds = [];
    let failed = false;
    this.flushing = markAlertsDelivered(this.options.pool, ids, this.options.clock.now())
      .catch((error) => {
        failed = true;
        this.deliveredIds.unshift(...ids);
        this.options.logger.warn('could not record delivered alerts; will try again', { err: error });
      })
      .finally(() => {
        this.flushing = null;
        // After a failure the poll timer tries again, rather than a tight loop against the database.
        if (!failed) this.flushDelivered();
      });
  }

  private pruneNow(): void {
    const retentionDays = this.options.retentionDays;
    const now = this.options.clock.now().getTime();
    if (retentionDays === undefined || now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.pruning = pruneFinishedAlerts(this.options.pool, new Date(now - retentionDays * DAY_MS))
      .then((removed) => {
        if (removed > 0) this.options.logger.info('pruned old alerts', { removed });
      })
      .catch((error) => {
        this.lastPrune = now - PRUNE_EVERY_MS + PRUNE_RETRY_MS;
        this.options.logger.warn('pruning old alerts failed; trying again soon', {
          err: error,
          retryInMs: PRUNE_RETRY_MS,
        });
      })
      .finally(() => {
        this.pruning = null;
      });
  }
}

function sendsByDestination(alerts: readonly OutboxAlert[]): Map<string, number> {
  const sends = new Map<string, number>();
  for (const { destinationKey } of alerts) sends.set(destinationKey, (sends.get(destinationKey) ?? 0) + 1);
  return sends;
}

/** What the log says about an alert. A webhook URL's path is its secret: only the origin is shown. */
function describe(alert: OutboxAlert): LogFields {
  const snapshot = alert.snapshot as { job?: { name?: string } };
  return {
    alertId: alert.id,
    job: snapshot.job?.name,
    jobId: alert.jobId,
    executionId: alert.executionId,
    event: alert.event,
    channel: alert.channel,
    destination: alert.channel === 'webhook' ? originOf(alert.destination) : alert.destination,
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}
