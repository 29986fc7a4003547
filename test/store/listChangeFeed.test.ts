import { Client } from 'pg';
import type { Database } from '../../src/store/database';
import { ListChangeFeed, type ListChangeFeedOptions } from '../../src/store/listChangeFeed';
import { createTestDatabase, onPostgresServer } from '../support/database';
import { createMemoryLogger } from '../support/memoryLogger';
import { eventually } from '../support/service';
import { TcpProxy } from '../support/tcpProxy';

/**
 * The feed proves a kept answer current with the server's notifications: a change committed by
 * any session before a catch-up was asked for is seen once it resolves true. Only a server has
 * sessions of their own to listen on (the embedded database is one session, and has no feed).
 */
const describeOnServer = onPostgresServer ? describe : describe.skip;

describeOnServer('ListChangeFeed', () => {
  let db: Database;
  const feeds: ListChangeFeed[] = [];
  /** Every session the feeds opened, in order. */
  let sessions: Client[];

  const bump = (list: string) => db.pool.query('SELECT bump_version_slot($1)', [list]);

  function newFeed(options: Partial<ListChangeFeedOptions> = {}): ListChangeFeed {
    const feed = new ListChangeFeed({
      openSession: async () => {
        const session = await db.openSession!();
        sessions.push(session);
        return session;
      },
      logger: createMemoryLogger(),
      retryDelayMs: 20,
      ...options,
    });
    feeds.push(feed);
    return feed;
  }

  /** Asks until the feed listens (the first ask opens its connection and answers false). */
  const listening = (feed: ListChangeFeed) => eventually(() => feed.caughtUp());

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  beforeEach(() => {
    sessions = [];
  });
  afterEach(async () => {
    await Promise.all(feeds.splice(0).map((feed) => feed.stop()));
  });
  afterAll(async () => {
    await db.close();
  });

  test('sees every change committed by another session before the catch-up was asked for', async () => {
    const feed = newFeed();
    await listening(feed);
    const executionsBefore = feed.seen('executions');
    for (let write = 0; write < 300; write++) {
      const before = feed.seen('jobs');
      await bump('jobs');
      // Asked at once: the notification may still be on its way, and must come before the answer.
      expect(await feed.caughtUp()).toBe(true);
      expect(feed.seen('jobs')).toBeGreaterThan(before);
    }
    expect(feed.seen('executions')).toBe(executionsBefore);
  });

  test('a change of one list moves that list only; a rolled-back one moves nothing', async () => {
    const feed = newFeed();
    await listening(feed);
    const jobs = feed.seen('jobs');
    const slots = feed.seen('slots');
    await bump('slots');
    const tx = await db.pool.connect();
    try {
      await tx.query('BEGIN');
      await tx.query("SELECT bump_version_slot('jobs')");
      await tx.query('ROLLBACK');
    } finally {
      tx.release();
    }
    expect(await feed.caughtUp()).toBe(true);
    expect(feed.seen('slots')).toBeGreaterThan(slots);
    expect(feed.seen('jobs')).toBe(jobs);
  });

  test('callers of one turn share one catch-up', async () => {
    const feed = newFeed();
    await listening(feed);
    const session = sessions[0]!;
    const sent = jest.spyOn(session, 'query');
    const answers = await Promise.all(Array.from({ length: 20 }, () => feed.caughtUp()));
    expect(answers.every(Boolean)).toBe(true);
    expect(sent).toHaveBeenCalledTimes(1);
  });

  test('a connection ended by the server is answered false, opened again, and every number moves', async () => {
    const feed = newFeed();
    await listening(feed);
    const before = { jobs: feed.seen('jobs'), slots: feed.seen('slots') };
    const ended = new Promise((resolve) => sessions[0]!.once('end', resolve));
    await db.pool.query('SELECT pg_terminate_backend($1)', [
      (sessions[0] as Client & { processID: number }).processID,
    ]);
    await ended;
    // While it was closed, a change could have been missed: no number may still match.
    expect(await feed.caughtUp()).toBe(false);
    await bump('executions');
    await listening(feed);
    expect(sessions).toHaveLength(2);
    expect(feed.seen('jobs')).toBeGreaterThan(before.jobs);
    expect(feed.seen('slots')).toBeGreaterThan(before.slots);
  });

  test('a catch-up that is not answered in time drops the connection and answers false', async () => {
    const proxy = new TcpProxy('127.0.0.1', Number(new URL(process.env.DATABASE_URL!).port));
    const port = await proxy.start();
    const target = new URL(process.env.DATABASE_URL!);
    target.port = String(port);
    target.pathname = new URL((db.pool.options as { connectionString: string }).connectionString).pathname;
    const feed = newFeed({
      openSession: async () => {
        const session = new Client({ connectionString: target.toString() });
        session.on('error', () => undefined);
        await session.connect();
        sessions.push(session);
        return session;
      },
      catchUpTimeoutMs: 200,
    });
    try {
      await listening(feed);
      proxy.hold();
      const started = Date.now();
      expect(await feed.caughtUp()).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      proxy.release();
      await listening(feed);
      expect(sessions).toHaveLength(2);
    } finally {
      proxy.release();
      await feed.stop();
      await proxy.stop();
    }
  });

  test('closes its connection when nobody asks, and opens it again at the next ask', async () => {
    const feed = newFeed({ idleMs: 100 });
    await listening(feed);
    await new Promise((resolve) => sessions[0]!.once('end', resolve));
    const opened = feed.seen('jobs');
    expect(await feed.caughtUp()).toBe(false);
    await listening(feed);
    expect(sessions).toHaveLength(2);
    expect(feed.seen('jobs')).toBeGreaterThan(opened);
  });

  describe('caughtUpRecently', () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    test('is false until the feed listens, true after a catch-up, false after a write of this process', async () => {
      const feed = newFeed({ staleMs: 60_000 });
      expect(feed.caughtUpRecently()).toBe(false);
      await listening(feed);
      expect(feed.caughtUpRecently()).toBe(true);
      feed.noteOwnWrite();
      expect(feed.caughtUpRecently()).toBe(false);
      // The one it asked for in the background, sent after the write, makes it recent again.
      await eventually(async () => feed.caughtUpRecently());
    });

    test('is false once the last catch-up is older than staleMs, and asks for the next itself', async () => {
      const feed = newFeed({ staleMs: 40 });
      await listening(feed);
      await sleep(80);
      const catchUps = jest.spyOn(feed, 'caughtUp');
      expect(feed.caughtUpRecently()).toBe(false);
      await eventually(async () => feed.caughtUpRecently());
      expect(catchUps).not.toHaveBeenCalled();
    });

    test('sees every change committed before the catch-up it trusts was sent', async () => {
      const feed = newFeed({ staleMs: 60_000 });
      await listening(feed);
      for (let write = 0; write < 50; write++) {
        const before = feed.seen('jobs');
        await bump('jobs');
        // A write of this process, as the service notes each statement's end.
        feed.noteOwnWrite();
        await eventually(async () => feed.caughtUpRecently());
        expect(feed.seen('jobs')).toBeGreaterThan(before);
      }
    });

    test('is never true with staleMs 0, nor once the connection is lost', async () => {
      const still = newFeed({ staleMs: 0 });
      await listening(still);
      expect(still.caughtUpRecently()).toBe(false);
      const feed = newFeed({ staleMs: 60_000 });
      await listening(feed);
      expect(feed.caughtUpRecently()).toBe(true);
      await db.pool.query('SELECT pg_terminate_backend($1)', [
        (sessions.at(-1) as Client & { processID: number }).processID,
      ]);
      await eventually(async () => !feed.caughtUpRecently());
      // Opened again, a catch-up on the new connection makes it recent.
      await listening(feed);
      expect(feed.caughtUpRecently()).toBe(true);
    });
  });

  test('stop answers false and closes the connection', async () => {
    const feed = newFeed();
    await listening(feed);
    const ended = new Promise((resolve) => sessions[0]!.once('end', resolve));
    await feed.stop();
    await ended;
    expect(await feed.caughtUp()).toBe(false);
  });
});
