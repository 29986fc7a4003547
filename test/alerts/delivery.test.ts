import type { lookup } from 'node:dns';
import { OutboxWorker } from '../../src/alerts/outboxWorker';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from '../../src/alerts/webhookSender';
import { systemClock } from '../../src/domain/clock';
import { claimDueAlerts, enqueueAlerts, saveAlertConfig } from '../../src/store/alerts';
import type { Database } from '../../src/store/database';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import { createMemoryLogger } from '../support/memoryLogger';
import { eventually, startTestService, type TestService } from '../support/service';
import { Receiver } from './support/receiver';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface OutboxRow {
  id: string;
  state: string;
  attempts: number;
  last_error: string | null;
  job_id: number;
}

async function outbox(db: Database): Promise<OutboxRow[]> {
  const { rows } = await db.pool.query<OutboxRow>(
    'SELECT id, state, attempts, last_error, job_id FROM alert_outbox ORDER BY id',
  );
  return rows;
}

/** Creates a job that fails, with one webhook for failures, runs it once and waits for the run. */
/**
 * `storedEarlier`: the configuration went in before its name came to resolve into a denied range
 * (or before the range was denied), so the API check, which resolves names too, did not stop it.
 */
async function failOnce(
  service: TestService,
  name: string,
  url: string,
  storedEarlier = false,
): Promise<number> {
  const created = await service.request('POST', '/api/jobs', { name, schedule: '@daily', command: 'exit 1' });
  const jobId = created.body.id;
  const config = { webhooks: [{ url, events: ['failed' as const] }], emails: [] };
  if (storedEarlier) await saveAlertConfig(service.db.pool, jobId, config, 'api');
  else await service.request('PUT', `/api/jobs/${jobId}/alerts`, config);
  expect((await service.request('POST', `/api/jobs/${jobId}/run`)).status).toBe(200);
  await service.local.idle();
  return jobId;
}

type LookupCallback = (error: Error | null, addresses: { address: string; family: number }[]) => void;

describe('alert delivery', () => {
  let receiver: Receiver;
  let db: Database;
  beforeEach(async () => {
    receiver = await Receiver.start();
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await receiver.close();
    await db.close();
  });

  it('gives up on a receiver that never answers after the timeout, logs it and leaves the run alone', async () => {
    expect(DEFAULT_WEBHOOK_TIMEOUT_MS).toBe(10_000);
    receiver.respondWith(() => 'hang');
    const service = await startTestService({
      db,
      alerting: { webhookTimeoutMs: 300, retryDelaysMs: [100], pollIntervalMs: 50 },
    });
    try {
      const jobId = await failOnce(service, 'silent', `${receiver.url}/secret-path`);
      await eventually(async () => receiver.requests.length >= 1);
      // The API answers while the receiver hangs.
      expect((await service.request('GET', `/api/jobs/${jobId}`)).status).toBe(200);

      await eventually(async () => (await outbox(db))[0]?.state === 'failed');
      expect(receiver.requests).toHaveLength(2);
      const [row] = await outbox(db);
      expect(row).toMatchObject({ attempts: 2, last_error: 'timed out after 300 ms' });

      const retry = service.logger.lines.find((l) => l.msg === 'alert delivery failed; will retry');
      expect(retry).toMatchObject({
        level: 'warn',
        job: 'silent',
        attempt: 1,
        error: 'timed out after 300 ms',
        destination: receiver.url,
      });
      expect(service.logger.lines.find((l) => l.msg === 'alert delivery failed; giving up')).toMatchObject({
        level: 'error',
        attempt: 2,
      });
      // A webhook URL's path is its secret: never in the log.
      expect(JSON.stringify(service.logger.lines)).not.toContain('secret-path');

      const executions = (await service.request('GET', `/api/executions?jobId=${jobId}`)).body;
      expect(executions).toHaveLength(1);
      expect(executions[0]).toMatchObject({ status: 'failed', exitCode: 1 });
      expect((await service.request('GET', `/api/jobs/${jobId}`)).body.lastStatus).toBe('failed');
    } finally {
      await service.stop();
    }
  });

  it('retries a receiver that answers 500 until it recovers, and delivers once, even after the job is deleted', async () => {
    receiver.respondWith((_, index) => (index < 2 ? { status: 500, body: 'busy' } : { status: 204 }));
    const service = await startTestService({
      db,
      alerting: { retryDelaysMs: [150, 150, 150], pollIntervalMs: 50 },
    });
    try {
      const jobId = await failOnce(service, 'flaky-receiver', `${receiver.url}/hook`);
      await eventually(async () => receiver.requests.length >= 1);
      // The alert carries its own snapshot: deleting the job does not lose it.
      expect((await service.request('DELETE', `/api/jobs/${jobId}`)).status).toBe(200);

      await eventually(async () => (await outbox(db))[0]?.state === 'delivered');
      await sleep(400);
      expect(receiver.requests.map((r) => r.answered)).toEqual([500, 500, 204]);
      const keys = new Set(receiver.requests.map((r) => r.headers['idempotency-key']));
      expect(keys.size).toBe(1);
      expect(new Set(receiver.requests.map((r) => r.text)).size).toBe(1);
      expect(receiver.requests[2]!.json.job).toMatchObject({
        id: jobId,
        name: 'flaky-receiver',
        command: 'exit 1',
      });
      expect((await outbox(db))[0]).toMatchObject({ attempts: 3, last_error: null });
      const warnings = service.logger.lines.filter((l) => l.msg === 'alert delivery failed; will retry');
      expect(warnings.map((l) => l.error)).toEqual(['HTTP 500: busy', 'HTTP 500: busy']);
    } finally {
      await service.stop();
    }
  });

  it('is woken by the commit of the execution, not by its poll timer', async () => {
    const service = await startTestService({ db, alerting: { pollIntervalMs: 60_000 } });
    try {
      await failOnce(service, 'prompt', `${receiver.url}/prompt`);
      await eventually(async () => receiver.requests.length >= 1, 3000);
      expect(receiver.requests[0]!.json.job.name).toBe('prompt');
    } finally {
      await service.stop();
    }
  });

  it('does not retry a receiver that refuses the alert (4xx, redirect)', async () => {
    receiver.respondWith((request) =>
      request.path === '/gone' ? { status: 404, body: 'no_service' } : { status: 302 },
    );
    const service = await startTestService({ db, alerting: { retryDelaysMs: [50, 50], pollIntervalMs: 50 } });
    try {
      await failOnce(service, 'gone', `${receiver.url}/gone`);
      await failOnce(service, 'moved', `${receiver.url}/moved`);
      await eventually(async () => (await outbox(db)).every((row) => row.state === 'failed'));
      await sleep(200);
      expect(receiver.requests.map((r) => r.path).sort()).toEqual(['/gone', '/moved']);
      const rows = await outbox(db);
      expect(rows.map((r) => r.last_error)).toEqual([
        'HTTP 404: no_service',
        'HTTP 302 (redirects are not followed)',
      ]);
    } finally {
      await service.stop();
    }
  });

  it('refuses at send time a host name that resolves into SERVICE_WEBHOOK_DENY_CIDRS', async () => {
    const service = await startTestService({
      db,
      env: { SERVICE_WEBHOOK_DENY_CIDRS: '127.0.0.0/8,::1/128' },
      alerting: { pollIntervalMs: 50 },
    });
    try {
      await failOnce(service, 'denied', `http://localhost:${receiver.port}/x`, true);
      await eventually(async () => (await outbox(db))[0]?.state === 'failed');
      expect(receiver.requests).toHaveLength(0);
      expect((await outbox(db))[0]!.last_error).toMatch(/is in SERVICE_WEBHOOK_DENY_CIDRS$/);
    } finally {
      await service.stop();
    }
  });

  // The deny list must hold for the address the connection really uses: one lookup, the checked
  // one. A separate check would let a name that answers differently the second time (DNS
  // rebinding) slip past.
  it('connects only to the addresses its deny check saw, resolving each name once', async () => {
    const lookups: string[] = [];
    const lookupWebhookHost = ((hostname: string, _options: unknown, callback: LookupCallback) => {
      lookups.push(hostname);
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    }) as unknown as typeof lookup;
    const url = `http://receiver.invalid:${receiver.port}/hook`;

    const allowing = await startTestService({ db, alerting: { pollIntervalMs: 50, lookupWebhookHost } });
    try {
      await failOnce(allowing, 'resolved', url);
      await eventually(async () => (await outbox(db))[0]?.state === 'delivered');
      expect(receiver.requests).toHaveLength(1);
      expect(lookups).toEqual(['receiver.invalid']);
    } finally {
      await allowing.stop();
    }

    lookups.length = 0;
    const denying = await startTestService({
      db,
      env: { SERVICE_WEBHOOK_DENY_CIDRS: '127.0.0.0/8' },
      alerting: { pollIntervalMs: 50, lookupWebhookHost },
    });
    try {
      await failOnce(denying, 'rebound', url, true);
      await eventually(async () => (await outbox(db))[1]?.state === 'failed');
      expect(receiver.requests).toHaveLength(1);
      expect(lookups).toEqual(['receiver.invalid']);
      expect((await outbox(db))[1]!.last_error).toBe(
        'receiver.invalid resolves to 127.0.0.1, which is in SERVICE_WEBHOOK_DENY_CIDRS',
      );
    } finally {
      await denying.stop();
    }
  });

  // The first service's retry must not come due while it runs: with the wall clock it would (600 ms
  // after each first attempt), and on a loaded machine the three runs alone take longer than that,
  // so the first alert was tried again, and given up, before the last one was tried at all. Its
  // clock stands still instead: each alert is tried once and then waits, a state that lasts.
  it('loses nothing and sends nothing twice across a restart of the service', async () => {
    const clock = new ManualClock('2026-03-10T12:00:00Z');
    receiver.respondWith(() => ({ status: 503 }));
    const first = await startTestService({
      db,
      clock,
      alerting: { retryDelaysMs: [600], pollIntervalMs: 50 },
    });
    try {
      for (const name of ['a', 'b', 'c']) await failOnce(first, `restart-${name}`, `${receiver.url}/restart`);
      await eventually(async () => {
        const rows = await outbox(db);
        return rows.length === 3 && rows.every((row) => row.attempts === 1 && row.last_error === 'HTTP 503');
      });
    } finally {
      await first.stop();
    }
    expect(receiver.requests.map((r) => r.answered)).toEqual([503, 503, 503]);

    clock.advance(600);
    receiver.respondWith(() => ({ status: 200 }));
    const second = await startTestService({ db, clock, alerting: { pollIntervalMs: 50 } });
    try {
      await eventually(async () => (await outbox(db)).every((row) => row.state === 'delivered'));
    } finally {
      await second.stop();
    }
    // A third start sends nothing again. The sign that it would have: a new alert, which its worker
    // claims after any older due one (oldest first), arrives.
    const third = await startTestService({ db, clock, alerting: { pollIntervalMs: 50 } });
    try {
      await failOnce(third, 'restart-d', `${receiver.url}/restart`);
      await eventually(async () => (await outbox(db))[3]?.state === 'delivered');
    } finally {
      await third.stop();
    }

    const byKey = new Map<string, (number | 'hang')[]>();
    for (const request of receiver.requests) {
      const key = String(request.headers['idempotency-key']);
      byKey.set(key, [...(byKey.get(key) ?? []), request.answered]);
    }
    expect([...byKey.values()]).toEqual([[503, 200], [503, 200], [503, 200], [200]]);
  });

  it('gives back a send that a stop cuts off, and the next start sends it', async () => {
    receiver.respondWith(() => 'hang');
    const first = await startTestService({ db, alerting: { stopGraceMs: 100, pollIntervalMs: 50 } });
    await failOnce(first, 'cut-off', `${receiver.url}/cut`);
    await eventually(async () => receiver.requests.length >= 1);
    await first.stop();
    expect((await outbox(db))[0]).toMatchObject({ state: 'pending', attempts: 0 });

    receiver.respondWith(() => ({ status: 200 }));
    const second = await startTestService({ db, alerting: { pollIntervalMs: 50 } });
    try {
      await eventually(async () => (await outbox(db))[0]?.state === 'delivered');
      expect(receiver.requests.map((r) => r.answered)).toEqual(['hang', 200]);
      expect((await outbox(db))[0]!.attempts).toBe(1);
    } finally {
      await second.stop();
    }
  });
});

describe('the outbox worker', () => {
  let db: Database;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await db.close();
  });

  const queue = (count: number) =>
    enqueueAlerts(
      db.pool,
      Array.from({ length: count }, (_, i) => ({
        jobId: 1,
        executionId: i + 1,
        subject: `execution:${i + 1}`,
        event: 'failed' as const,
        channel: 'webhook' as const,
        destination: 'http://127.0.0.1:9/x',
        snapshot: { job: { name: 'j' } },
        createdAt: new Date(),
        state: 'pending' as const,
        note: null,
      })),
    );

  function worker(workerId: string, sent: Map<number, string[]>): OutboxWorker {
    return new OutboxWorker({
      pool: db.pool,
      clock: systemClock,
      logger: createMemoryLogger(),
      workerId,
      pollIntervalMs: 20,
      concurrency: 4,
      deliver: async (alert) => {
        sent.set(alert.id, [...(sent.get(alert.id) ?? []), workerId]);
        await sleep(5);
        return { status: 'delivered' };
      },
    });
  }

  it('lets two replicas share the outbox without sending any alert twice', async () => {
    await queue(60);
    const sent = new Map<number, string[]>();
    const replicas = [worker('replica-1', sent), worker('replica-2', sent)];
    for (const replica of replicas) replica.start();
    try {
      await eventually(async () => {
        const { rows } = await db.pool.query(
          `SELECT count(*)::int AS n FROM alert_outbox WHERE state = 'delivered'`,
        );
        return rows[0].n === 60;
      });
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop()));
    }
    expect(sent.size).toBe(60);
    expect([...sent.values()].every((senders) => senders.length === 1)).toBe(true);
    const perReplica = [...sent.values()].flat();
    expect(perReplica.filter((id) => id === 'replica-1').length).toBeGreaterThan(0);
    expect(perReplica.filter((id) => id === 'replica-2').length).toBeGreaterThan(0);
  });

  it('takes over the claim of a worker that died mid-send once its lease runs out', async () => {
    await queue(1);
    const now = new Date();
    const claimed = await claimDueAlerts(db.pool, {
      now,
      leaseUntil: new Date(now.getTime() + 300),
      workerId: 'dead-replica',
      limit: 10,
    });
    expect(claimed).toHaveLength(1);

    const sent = new Map<number, string[]>();
    const survivor = worker('survivor', sent);
    survivor.start();
    try {
      await sleep(150);
      expect(sent.size).toBe(0);
      await eventually(async () => sent.size === 1);
    } finally {
      await survivor.stop();
    }
    const { rows } = await db.pool.query('SELECT state, attempts, locked_by FROM alert_outbox');
    expect(rows[0]).toEqual({ state: 'delivered', attempts: 2, locked_by: 'survivor' });
  });
});
