import { DEFAULT_PER_DESTINATION_CONCURRENCY, OutboxWorker } from '../../src/alerts/outboxWorker';
import { systemClock } from '../../src/domain/clock';
import { claimDueAlerts, enqueueAlerts, type OutboxAlert } from '../../src/store/alerts';
import type { Database } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import { createMemoryLogger } from '../support/memoryLogger';
import { eventually, startTestService, type TestService } from '../support/service';
import { Receiver } from './support/receiver';
import { ScriptedRuns } from './support/scriptedRuns';

jest.setTimeout(120_000);

interface OutboxRow {
  id: string;
  destination: string;
  state: string;
  attempts: number;
  locked_until: Date | null;
}

async function outbox(db: Database): Promise<OutboxRow[]> {
  const { rows } = await db.pool.query<OutboxRow>(
    'SELECT id, destination, state, attempts, locked_until FROM alert_outbox ORDER BY id',
  );
  return rows;
}

/** Creates a job with one webhook for failures and runs it once, failing. */
async function failOnce(service: TestService, runs: ScriptedRuns, name: string, url: string): Promise<void> {
  const created = await service.request('POST', '/api/jobs', { name, schedule: '@daily', command: 'true' });
  expect(created.status).toBe(201);
  const config = { webhooks: [{ url, events: ['failed'] }] };
  expect((await service.request('PUT', `/api/jobs/${created.body.id}/alerts`, config)).status).toBe(200);
  runs.next(name, { status: 'failed' });
  expect((await service.request('POST', `/api/jobs/${created.body.id}/run`)).status).toBe(200);
  await service.local.idle();
}

const BACKLOG = 50;
/** Longer than the test: a request the dead receiver holds stays held until the service stops. */
const DEAD_TIMEOUT_MS = 10 * 60_000;

// Issue 38: a receiver that accepts and never answers, used by 50 failing jobs, held every send of
// the worker (16, each until its 10 s timeout), and another job's alert to a healthy receiver came
// minutes late.
describe('a destination that never answers', () => {
  let dead: Receiver;
  let healthy: Receiver;
  let db: Database;
  beforeEach(async () => {
    [dead, healthy, db] = await Promise.all([
      Receiver.start(() => 'hang'),
      Receiver.start(() => ({ status: 200 })),
      createTestDatabase(),
    ]);
  });
  afterEach(async () => {
    await Promise.all([dead.close(), healthy.close()]);
    await db.close();
  });

  it('holds at most its share of the sends: another receiver gets its alert meanwhile, and nothing is lost or sent twice', async () => {
    const runs = new ScriptedRuns();
    const first = await startTestService({
      db,
      local: { execute: runs.run },
      alerting: { webhookTimeoutMs: DEAD_TIMEOUT_MS, pollIntervalMs: 50, stopGraceMs: 100 },
    });
    try {
      // Paths of their own, as teams' jobs have: what hangs is the receiver, whatever the path.
      for (let i = 0; i < BACKLOG; i++) await failOnce(first, runs, `dead-${i}`, `${dead.url}/hook/${i}`);
      await failOnce(first, runs, 'healthy', `${healthy.url}/hook`);

      // Structural, not a speed bar: with every send held by the dead receiver (for 10 minutes
      // each), the healthy alert could not go out before the test's deadline at all.
      await eventually(async () => healthy.requests.length === 1, 30_000);
      const held = (await outbox(db)).filter((row) => row.destination.startsWith(dead.url));
      const claimed = held.filter((row) => row.locked_until !== null);
      expect(claimed.length).toBeGreaterThanOrEqual(1);
      expect(claimed.length).toBeLessThanOrEqual(DEFAULT_PER_DESTINATION_CONCURRENCY);
      expect(dead.requests.length).toBeLessThanOrEqual(DEFAULT_PER_DESTINATION_CONCURRENCY);
      expect(dead.requests.every((request) => request.answered === 'hang')).toBe(true);
      // The rest wait their turn, untried.
      expect(held.filter((row) => row.locked_until === null).map((row) => row.attempts)).toEqual(
        Array.from({ length: BACKLOG - claimed.length }, () => 0),
      );
    } finally {
      // The held sends are cut off and given back: they do not count as attempts.
      await first.stop();
    }
    expect((await outbox(db)).filter((row) => row.state === 'pending')).toHaveLength(BACKLOG);

    dead.respondWith(() => ({ status: 200 }));
    const second = await startTestService({ db, alerting: { pollIntervalMs: 50 } });
    try {
      await eventually(async () => (await outbox(db)).every((row) => row.state === 'delivered'), 60_000);
    } finally {
      await second.stop();
    }
    const answersByAlert = new Map<string, (number | 'hang')[]>();
    for (const request of [...dead.requests, ...healthy.requests]) {
      const key = String(request.headers['idempotency-key']);
      answersByAlert.set(key, [...(answersByAlert.get(key) ?? []), request.answered]);
    }
    expect(answersByAlert.size).toBe(BACKLOG + 1);
    for (const answers of answersByAlert.values()) {
      expect(answers.filter((answer) => answer === 200)).toHaveLength(1);
      expect(answers.at(-1)).toBe(200);
    }
  });
});

describe('the claim of due alerts, per destination', () => {
  let db: Database;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await db.close();
  });

  const queue = (destinations: { channel: 'webhook' | 'email'; destination: string }[]) =>
    enqueueAlerts(
      db.pool,
      destinations.map(({ channel, destination }, i) => ({
        jobId: 1,
        executionId: i + 1,
        subject: `execution:${i + 1}`,
        event: 'failed' as const,
        channel,
        destination,
        snapshot: { job: { name: 'j' } },
        createdAt: new Date(Date.now() - 1000 + i),
        state: 'pending' as const,
        note: null,
      })),
    );
  const claim = (
    perDestination: number,
    inFlight: Pick<OutboxAlert, 'destination' | 'destinationKey'>[] = [],
    limit = 10,
  ) => {
    const now = new Date();
    return claimDueAlerts(db.pool, {
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
      workerId: 'test',
      limit,
      destinations: { perDestination, inFlight },
    });
  };

  it('counts a webhook by its scheme, host and port, and every e-mail as the one SMTP server', async () => {
    await queue([
      { channel: 'webhook', destination: 'http://ops:s3cret@Hooks.Example.com:8080/a?token=1' },
      { channel: 'webhook', destination: 'http://hooks.example.com:8080/b' },
      { channel: 'webhook', destination: 'https://hooks.example.com:8080/c' },
      { channel: 'webhook', destination: 'http://hooks.example.com/d#x' },
      { channel: 'webhook', destination: 'http://x@y@HOOKS.example.com?token=2' },
      { channel: 'email', destination: 'ops@example.com' },
      { channel: 'email', destination: 'dba@example.com, ops@example.com' },
    ]);
    const first = await claim(1);
    expect(first.map((alert) => [alert.destination, alert.destinationKey])).toEqual([
      ['http://ops:s3cret@Hooks.Example.com:8080/a?token=1', 'http://hooks.example.com:8080'],
      ['https://hooks.example.com:8080/c', 'https://hooks.example.com:8080'],
      ['http://hooks.example.com/d#x', 'http://hooks.example.com'],
      ['ops@example.com', 'email'],
    ]);
    // The oldest of each destination went first; the others wait for a free place.
    expect(await claim(1, first)).toEqual([]);
    const next = await claim(2, first);
    expect(next.map((alert) => alert.destination)).toEqual([
      'http://hooks.example.com:8080/b',
      'http://x@y@HOOKS.example.com?token=2',
      'dba@example.com, ops@example.com',
    ]);
  });

  it('looks past a destination at its limit for the alerts queued behind its own', async () => {
    await queue([
      ...Array.from({ length: 8 }, (_, i) => ({
        channel: 'webhook' as const,
        destination: `http://dead.example/${i % 2}`,
      })),
      { channel: 'webhook', destination: 'http://healthy.example/hook' },
    ]);
    // A claim of 2 at 1 per destination looks at the 2 oldest alerts: both the dead receiver's.
    const first = await claim(1, [], 2);
    expect(first.map((alert) => alert.destination)).toEqual(['http://dead.example/0']);
    const second = await claim(1, first, 2);
    expect(second.map((alert) => alert.destination)).toEqual(['http://healthy.example/hook']);
  });
});

describe('the outbox worker, per destination', () => {
  let db: Database;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await db.close();
  });

  const queueFor = (destinations: string[]) =>
    enqueueAlerts(
      db.pool,
      destinations.map((destination, i) => ({
        jobId: 1,
        executionId: i + 1,
        subject: `execution:${i + 1}`,
        event: 'failed' as const,
        channel: 'webhook' as const,
        destination,
        snapshot: {},
        createdAt: new Date(Date.now() - 1000 + i),
        state: 'pending' as const,
        note: null,
      })),
    );

  // The claim looks at the oldest alerts only, all the stuck receiver's here; the poll is an hour
  // away, and the stuck sends never finish: only looking again past the full destination finds it.
  it('finds an alert queued behind a long queue of a destination it just filled', async () => {
    await queueFor([
      ...Array.from({ length: 40 }, () => 'http://stuck.example/hook'),
      'http://other.example/hook',
    ]);
    const sent: string[] = [];
    const worker = new OutboxWorker({
      pool: db.pool,
      clock: systemClock,
      logger: createMemoryLogger(),
      pollIntervalMs: 60 * 60_000,
      // Room for the stuck destination's share and one more send.
      concurrency: DEFAULT_PER_DESTINATION_CONCURRENCY + 1,
      stopGraceMs: 100,
      deliver: async (alert, stop) => {
        sent.push(alert.destination);
        if (alert.destination.startsWith('http://stuck.example')) {
          // Until the worker stops: the receiver never answers.
          await new Promise((resolve) => stop.addEventListener('abort', resolve, { once: true }));
          return { status: 'interrupted' };
        }
        return { status: 'delivered' };
      },
    });
    worker.start();
    try {
      await eventually(async () => sent.includes('http://other.example/hook'), 30_000);
      expect(sent.filter((destination) => destination.startsWith('http://stuck.example'))).toHaveLength(
        DEFAULT_PER_DESTINATION_CONCURRENCY,
      );
    } finally {
      await worker.stop();
    }
  });

  // The poll is an hour away: only the worker's own wake-ups, as sends finish, can get the backlog out.
  it('sends a destination’s backlog as its sends finish, never more at once than its share', async () => {
    const destinations = ['http://a.example/hook', 'http://b.example/hook'];
    const perDestination = 20;
    await enqueueAlerts(
      db.pool,
      Array.from({ length: perDestination * destinations.length }, (_, i) => ({
        jobId: 1,
        executionId: i + 1,
        subject: `execution:${i + 1}`,
        event: 'failed' as const,
        channel: 'webhook' as const,
        destination: destinations[i % destinations.length]!,
        snapshot: {},
        createdAt: new Date(),
        state: 'pending' as const,
        note: null,
      })),
    );
    const inFlight = new Map<string, number>();
    let mostAtOnce = 0;
    let sent = 0;
    const worker = new OutboxWorker({
      pool: db.pool,
      clock: systemClock,
      logger: createMemoryLogger(),
      pollIntervalMs: 60 * 60_000,
      deliver: async (alert) => {
        const now = (inFlight.get(alert.destination) ?? 0) + 1;
        inFlight.set(alert.destination, now);
        mostAtOnce = Math.max(mostAtOnce, now);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight.set(alert.destination, inFlight.get(alert.destination)! - 1);
        sent++;
        return { status: 'delivered' };
      },
    });
    worker.start();
    try {
      await eventually(async () => sent === perDestination * destinations.length, 30_000);
    } finally {
      await worker.stop();
    }
    expect(mostAtOnce).toBe(DEFAULT_PER_DESTINATION_CONCURRENCY);
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM alert_outbox WHERE state = 'delivered'`,
    );
    expect(rows[0].n).toBe(perDestination * destinations.length);
  });
});
