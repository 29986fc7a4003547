import { performance } from 'node:perf_hooks';
import type { Client, Notification } from 'pg';
import type { Logger } from '../logging/logger';
import type { VersionedList } from './listVersions';

/** The channel that every bump of a list's version notifies, its payload the list (migration 022). */
const LIST_CHANGES_CHANNEL = 'crondeck_list_versions';

/**
 * What a cache asks before it answers from what it kept: has the list changed since?
 *
 * `seen(list)` moves whenever a change of the list is seen, and whenever what was seen may have
 * missed one (a connection opened again): two equal numbers mean that no change came between the
 * two moments they were taken. `caughtUp()` resolves true once every change committed before the
 * call has been seen, or false when that cannot be told (not listening): ask the database then.
 */
export interface ListChanges {
  seen(list: VersionedList): number;
  caughtUp(): Promise<boolean>;
  /**
   * Whether every change committed before `staleMs` ago, and every write of this process, is known
   * to have been seen: a recent read may then answer from what it kept without a round trip.
   */
  caughtUpRecently(): boolean;
}

export interface ListChangeFeedOptions {
  /** Opens a connection of its own to the server (`Database.openSession`). */
  openSession: () => Promise<Client>;
  logger: Logger;
  /**
   * With no `caughtUp()` for this long (checked as often), the connection is closed until the next
   * (default 30 s).
   */
  idleMs?: number;
  /** A catch-up not answered by then counts as a lost connection (default 2 s). */
  catchUpTimeoutMs?: number;
  /** The first wait before trying to connect again; doubled each failure up to 30 s (default 500 ms). */
  retryDelayMs?: number;
  /**
   * How old a catch-up may be for `caughtUpRecently()` (`SERVICE_READ_STALENESS_MS`, default 10 ms).
   * 0: never, every read waits for a catch-up of its own.
   */
  staleMs?: number;
}

/** How far behind the other processes' writes a recent read may be, by default. */
export const DEFAULT_READ_STALENESS_MS = 10;

const MAX_RETRY_DELAY_MS = 30_000;
/** How long closing waits for the server to see the connection out (one that hangs is left behind). */
const CLOSE_WAIT_MS = 1_000;

/**
 * Knows which lists changed from the notifications the server sends, so that a kept answer can
 * be proven current without reading a version (caching/versionedRenders.ts).
 *
 * The proof is a round trip, but the cheapest there is: an empty query on the connection that
 * listens. PostgreSQL signals every listening session while a transaction commits, before the
 * committing client is answered, and a session sends the notifications it was signalled before it
 * answers its next query. So once the answer to an empty query sent at moment T has come, every
 * notification of a transaction committed before T has come ahead of it, whoever committed it:
 * another replica, the controller, a script. A reader then answers as fresh as a read of its own,
 * for a query that the server parses, plans and runs nothing for.
 *
 * One catch-up is under way at a time. The callers of one turn of the event loop share the next,
 * sent once the turn's I/O has been taken in; those that come while one is under way share the one
 * sent when it ends (a second connection gained nothing measurable, and cost every writer's commit
 * the waking of one more listening session).
 *
 * The connection is opened when asked for and closed after `idleMs` without a caller, so that a
 * service nobody reads from costs no writer anything. While it is not listening (opening, failed,
 * idle), `caughtUp()` answers false at once and readers read versions as they would without it.
 * Each opening moves every `seen` number, since notifications sent while closed were lost.
 *
 * A read that may be a little behind (`caughtUpRecently()`, what the API answers unless a request
 * asks for `Cache-Control: no-cache`) needs no round trip of its own while the last catch-up
 * answered was sent at most `staleMs` ago and after the last write of this process
 * (`noteOwnWrite()`): it has seen every change committed before then. Readers that find it older
 * than half that send the next one in the background, so that under a steady load none waits.
 */
export class ListChangeFeed implements ListChanges {
  private client: Client | null = null;
  private opening = false;
  private stopped = false;
  private failures = 0;
  private retryAt = 0;
  private lastAskedAt = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly changes = new Map<string, number>();
  /** Bumped each time the connection starts listening: every `seen` number moves with it. */
  private openings = 0;
  private waiting: ((caughtUp: boolean) => void)[] = [];
  private catchingUp = false;
  private flushScheduled = false;
  /** When the last answered catch-up was sent (performance.now()); -Infinity while not listening. */
  private caughtUpAt = -Infinity;
  /** When the catch-up under way, if any, was sent. */
  private catchUpSentAt = -Infinity;
  /** When this process last finished a statement that may have written (`noteOwnWrite()`). */
  private ownWriteAt = -Infinity;
  /** A reader found the last catch-up old: the next is sent even with nobody waiting for it. */
  private backgroundWanted = false;
  private readonly staleMs: number;
  private readonly idleMs: number;
  private readonly catchUpTimeoutMs: number;
  private readonly retryDelayMs: number;

  constructor(private readonly options: ListChangeFeedOptions) {
    this.idleMs = options.idleMs ?? 30_000;
    this.catchUpTimeoutMs = options.catchUpTimeoutMs ?? 2_000;
    this.retryDelayMs = options.retryDelayMs ?? 500;
    this.staleMs = options.staleMs ?? DEFAULT_READ_STALENESS_MS;
  }

  seen(list: VersionedList): number {
    return this.openings + (this.changes.get(list) ?? 0);
  }

  caughtUp(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    this.lastAskedAt = performance.now();
    if (!this.client) {
      this.openIfDue();
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.scheduleCatchUp();
    });
  }

  caughtUpRecently(): boolean {
    if (this.staleMs === 0 || !this.client || this.stopped) return false;
    const now = performance.now();
    this.lastAskedAt = now;
    const age = now - this.caughtUpAt;
    const coversOwnWrites = this.caughtUpAt > this.ownWriteAt;
    // One under way and sent after this process's last write renews it soon enough.
    const renewing = this.catchingUp && this.catchUpSentAt > this.ownWriteAt;
    if ((age > this.staleMs / 2 || !coversOwnWrites) && !renewing) {
      this.backgroundWanted = true;
      this.scheduleCatchUp();
    }
    return coversOwnWrites && age <= this.staleMs;
  }

  /**
   * Called when a statement of this process that may have written has finished (the service calls
   * it as each pool connection is given back): reads answered from then on wait for a catch-up sent
   * after it, so that a client that wrote through this process reads its write at once.
   */
  noteOwnWrite(): void {
    this.ownWriteAt = performance.now();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.settleWaiting(false);
    await this.close();
  }

  /**
   * Sends a catch-up after the I/O callbacks of this turn (one for every request that came in it),
   * unless one is already due; while one is under way, the next is sent when it ends.
   */
  private scheduleCatchUp(): void {
    if (this.flushScheduled || this.catchingUp) return;
    this.flushScheduled = true;
    setImmediate(() => this.sendCatchUp());
  }

  private sendCatchUp(): void {
    this.flushScheduled = false;
    const client = this.client;
    if (!client) {
      this.settleWaiting(false);
      return;
    }
    // One that `caughtUpRecently()` wants has nobody waiting, and is sent all the same.
    if (this.waiting.length === 0 && !this.backgroundWanted) return;
    this.backgroundWanted = false;
    const waiting = this.waiting;
    this.waiting = [];
    this.catchingUp = true;
    const sentAt = performance.now();
    this.catchUpSentAt = sentAt;
    const settle = (caughtUp: boolean) => {
      this.catchingUp = false;
      if (caughtUp && this.client === client && sentAt > this.caughtUpAt) this.caughtUpAt = sentAt;
      for (const resolve of waiting) resolve(caughtUp);
      // The callers that came while it was under way: their catch-up is sent now, after them.
      this.sendCatchUp();
    };
    within(client.query(''), this.catchUpTimeoutMs).then(
      (answered) => {
        if (!answered) this.lost(client, new Error('no answer to a catch-up in time'));
        settle(answered);
      },
      (error: Error) => {
        this.lost(client, error);
        settle(false);
      },
    );
  }

  private openIfDue(): void {
    if (this.opening || this.stopped || performance.now() < this.retryAt) return;
    this.opening = true;
    void this.open().finally(() => {
      this.opening = false;
    });
  }

  private async open(): Promise<void> {
    let client: Client | undefined;
    try {
      client = await this.options.openSession();
      const opened = client;
      client.on('notification', (message) => this.noteChange(message));
      client.on('error', (error) => this.lost(opened, error));
      client.on('end', () => this.lost(opened, new Error('the connection ended')));
      await client.query(`LISTEN ${LIST_CHANGES_CHANNEL}`);
    } catch (error) {
      await client?.end().catch(() => undefined);
      this.failed(error as Error);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    // From here on this connection hears every change; what was seen before may have missed some.
    this.openings += 1;
    this.client = client;
    if (this.failures > 0) this.options.logger.info('listening for list changes again');
    this.failures = 0;
    this.idleTimer = setInterval(() => this.closeIfIdle(), this.idleMs);
    this.idleTimer.unref();
  }

  private noteChange(message: Notification): void {
    if (message.channel !== LIST_CHANGES_CHANNEL || message.payload === undefined) return;
    this.changes.set(message.payload, (this.changes.get(message.payload) ?? 0) + 1);
  }

  private closeIfIdle(): void {
    if (performance.now() - this.lastAskedAt >= this.idleMs) void this.close();
  }

  private async close(): Promise<void> {
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = null;
    this.caughtUpAt = -Infinity;
    const client = this.client;
    this.client = null;
    if (!client) return;
    await within(
      client.end().catch(() => undefined),
      CLOSE_WAIT_MS,
    );
  }

  /** A connection that failed or ended (once, whichever of its signs comes first). */
  private lost(client: Client, error: Error): void {
    if (this.client !== client) return;
    void this.close();
    if (!this.stopped) this.failed(error);
  }

  private failed(error: Error): void {
    const delay = Math.min(this.retryDelayMs * 2 ** this.failures, MAX_RETRY_DELAY_MS);
    if (this.failures === 0) {
      this.options.logger.warn('not listening for list changes; reading list versions instead', {
        err: error,
        retryInMs: delay,
      });
    }
    this.failures += 1;
    this.retryAt = performance.now() + delay;
  }

  private settleWaiting(caughtUp: boolean): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve(caughtUp);
  }
}

/** Whether `work` settled within `ms` (its rejection passes through); what it leaves is not waited for. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
