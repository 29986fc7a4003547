import { Pool } from 'pg';
import { OutboxWorker } from '../../src/alerts/outboxWorker';
import { connectToServer, type Database } from '../../src/store/database';
import { ControlledAttempts } from '../support/attempts';
import { createTestDatabase, onPostgresServer } from '../support/database';
import { systemClock } from '../../src/domain/clock';
import { scheduleRetention } from '../../src/scheduling/retention';
import { createMemoryLogger } from '../support/memoryLogger';
import { eventually, startTestService } from '../support/service';
import { ManualClock } from '../support/clock';
import { TcpProxy } from '../support/tcpProxy';

/** The database as the service sees it through a proxy that the test can cut. */
async function databaseBehindProxy(): Promise<{
  db: Database;
  /** The same database, not behind the proxy: a writer the outage does not reach. */
  real: Database;
  proxy: TcpProxy;
  close(): Promise<void>;
}> {
  const real = await createTestDatabase();
  const options = real.pool.options as {
    host?: string;
    port?: number;
    connectionString?: string;
    user?: string;
    database?: string;
  };
  const target = options.connectionString ? new URL(options.connectionString) : undefined;
  const proxy = new TcpProxy(
    target?.hostname ?? options.host ?? '127.0.0.1',
    Number(target?.port || options.port),
  );
  const port = await proxy.start();
  const user = target ? decodeURIComponent(target.username) : options.user!;
  const database = target ? target.pathname.slice(1) : options.database!;
  const max = real.pool.options.max;
  let db: Database;
  if (onPostgresServer) {
    // The service's own pools: the label filters' connections set their plan mode as they open.
    db = connectToServer(`postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`, max);
  } else {
    // The embedded database is one session: one pool, as the service has it.
    const pool = new Pool({ host: '127.0.0.1', port, user, database, max });
    pool.on('error', () => undefined);
    db = { pool, genericPlanPool: pool, description: 'behind a proxy', close: () => pool.end() };
  }
  return {
    db,
    real,
    proxy,
    async close() {
      await db.close().catch(() => undefined);
      await proxy.stop();
      await real.close();
    },
  };
}

describe('a database outage', () => {
  it('answers 503 while the database is away and records a finished run once it is back', async () => {
    const { db, proxy, close } = await databaseBehindProxy();
    const attempts = new ControlledAttempts();
    const service = await startTestService({ db, local: { execute: attempts.run } });
    try {
      const job = (
        await service.request('POST', '/api/jobs', { name: 'through', schedule: '@daily', command: 'true' })
      ).body;
      await service.request('POST', `/api/jobs/${job.id}/run`);
      await attempts.waitForStarted(1);

      await proxy.cut();
      const unavailable = await service.request('GET', '/api/jobs');
      expect(unavailable.status).toBe(503);
      expect(unavailable.body).toEqual({ error: 'database unavailable, try again shortly' });
      const countWhileAway = await service.request('GET', '/api/labels/filter/count?ids=1');
      expect(countWhileAway.status).toBe(503);
      // The run finishes while the database is away; its result waits in memory.
      attempts.finishNext({ stdout: 'kept\n' });
      await new Promise((resolve) => setTimeout(resolve, 400));
      await proxy.restore();

      await service.local.idle();
      const count = await service.request('GET', '/api/labels/filter/count?ids=1');
      expect(count).toMatchObject({ status: 200, body: { total: 0, unread: 0 } });
      const [execution] = (await service.request('GET', `/api/executions?jobId=${job.id}`)).body;
      expect(execution).toMatchObject({ status: 'success' });
      expect((await service.request('GET', `/api/executions/${execution.id}`)).body.stdout).toBe('kept\n');
      const metrics = (await service.request('GET', '/metrics')).text;
      expect(metrics).toContain('service_executions_total{status="success"} 1');
      expect(service.logger.lines.some((line) => line.msg === 'database unavailable; retrying')).toBe(true);
    } finally {
      await service.stop();
      await close();
    }
  });

  it('answers no kept job stale across an outage: a write made while it was away is on the first read after', async () => {
    const { db, real, proxy, close } = await databaseBehindProxy();
    const service = await startTestService({ db });
    const read = (id: number) => service.request('GET', `/api/jobs/${id}`);
    try {
      const job = { name: 'kept', schedule: '@daily', command: 'echo before' };
      const id = (await service.request('POST', '/api/jobs', job)).body.id as number;
      expect((await read(id)).body.command).toBe('echo before');
      // On a server the answer is kept while the service listens for changes: let it listen.
      if (service.listChanges) await eventually(() => service.listChanges!.caughtUp());
      expect((await read(id)).body.command).toBe('echo before');

      await proxy.cut();
      await real.pool.query(`UPDATE jobs SET command = 'echo during' WHERE id = $1`, [id]);
      expect((await read(id)).status).toBe(503);
      await proxy.restore();
      const after = await eventually(async () => {
        const answer = await read(id);
        return answer.status === 200 && answer;
      });
      expect(after.body.command).toBe('echo during');
    } finally {
      await service.stop();
      await close();
    }
  });

  it('tells open /health callers only that the database is unavailable; token holders and the log hear why', async () => {
    const { db, proxy, close } = await databaseBehindProxy();
    const token = 'health-details-token-1234';
    const service = await startTestService({ db, env: { SERVICE_API_TOKEN: token } });
    try {
      await proxy.cut();
      const open = await service.request('GET', '/health');
      expect(open.status).toBe(503);
      expect(open.body).toEqual({ status: 'unavailable', error: 'database unavailable' });
      expect(open.text).not.toContain(String(proxy.port));
      const wrongToken = await service.request('GET', '/health', undefined, {
        Authorization: 'Bearer not-the-token-at-all',
      });
      expect(wrongToken.body).toEqual({ status: 'unavailable', error: 'database unavailable' });

      const authorized = await service.request('GET', '/health', undefined, {
        Authorization: `Bearer ${token}`,
      });
      expect(authorized.status).toBe(503);
      expect(authorized.body.error).toMatch(/^database unavailable: .+/);
      const logged = service.logger.lines.find((line) => line.msg === 'health: database unreachable');
      expect(logged).toMatchObject({ reason: expect.any(String) });
    } finally {
      await proxy.restore();
      await service.stop();
      await close();
    }
  });

  it('answers /livez 200 through the outage, while /health (readiness) says 503', async () => {
    const { db, proxy, close } = await databaseBehindProxy();
    const service = await startTestService({ db });
    let away = false;
    try {
      expect((await service.request('GET', '/livez')).body).toEqual({ status: 'ok' });
      await proxy.cut();
      away = true;
      expect((await service.request('GET', '/health')).status).toBe(503);
      const live = await service.request('GET', '/livez');
      expect(live).toMatchObject({ status: 200, body: { status: 'ok' } });
    } finally {
      if (away) await proxy.restore();
      await service.stop();
      await close();
    }
  });

  it('prunes old history again within minutes when a pass met the outage, not a day later', async () => {
    const { db, proxy, close } = await databaseBehindProxy();
    const logger = createMemoryLogger();
    const oldRows = async () =>
      (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM executions')).rows[0]!.n;
    let stop = () => undefined as void;
    let away = false;
    try {
      const { rows } = await db.pool.query<{ id: number }>(
        `INSERT INTO jobs (name, schedule, command) VALUES ('old', '@daily', 'true') RETURNING id`,
      );
      await db.pool.query(
        `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code)
         VALUES ($1, 'old', 'success', now() - interval '200 days', now() - interval '200 days', 0, 0)`,
        [rows[0]!.id],
      );
      await proxy.cut();
      away = true;
      // A day between passes, as in the service: only the retry can prune within this test.
      stop = scheduleRetention(db.pool, systemClock, 90, logger, {
        firstDelayMs: 0,
        retryDelayMs: 300,
        intervalMs: 24 * 60 * 60 * 1000,
      });
      const failed = await eventually(async () =>
        logger.lines.find((line) => line.msg === 'pruning old executions failed; trying again soon'),
      );
      expect(failed).toMatchObject({ level: 'warn', retryInMs: 300 });
      await proxy.restore();
      away = false;
      // The pass logs once it has pruned the slot ledger too, after the executions' delete has
      // committed: wait for its word, not for the rows.
      const pruned = await eventually(async () =>
        logger.lines.find((line) => line.msg === 'pruned old executions'),
      );
      expect(pruned).toMatchObject({ removed: 1 });
      expect(await oldRows()).toBe(0);
    } finally {
      stop();
      if (away) await proxy.restore();
      await close();
    }
  });

  it('prunes old alerts again within minutes when a pass met the outage, not a pruning period later', async () => {
    const { db, proxy, close } = await databaseBehindProxy();
    const logger = createMemoryLogger();
    const clock = new ManualClock(new Date());
    const oldAlerts = async () =>
      (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_outbox')).rows[0]!.n;
    const worker = new OutboxWorker({
      pool: db.pool,
      clock,
      logger,
      pollIntervalMs: 20,
      retentionDays: 90,
      deliver: async () => ({ status: 'delivered' }),
    });
    let away = false;
    try {
      await db.pool.query(
        `INSERT INTO alert_outbox (job_id, execution_id, subject, event, channel, destination, snapshot, state,
           created_at, next_attempt_at, finished_at)
         VALUES (1, 1, 'execution:1', 'failed', 'webhook', 'http://127.0.0.1:9/x', '{}', 'delivered',
           now() - interval '200 days', now() - interval '200 days', now() - interval '200 days')`,
      );
      await proxy.cut();
      away = true;
      worker.start();
      // An hour on, the worker prunes: the database is away.
      clock.advance(61 * 60_000);
      const failed = await eventually(async () =>
        logger.lines.find((line) => line.msg === 'pruning old alerts failed; trying again soon'),
      );
      expect(failed).toMatchObject({ level: 'warn', retryInMs: 5 * 60_000 });
      await proxy.restore();
      away = false;
      // Minutes later, not an hour: the retry prunes.
      clock.advance(6 * 60_000);
      // Its word comes after its delete has committed: wait for it, not for the rows.
      const pruned = await eventually(async () =>
        logger.lines.find((line) => line.msg === 'pruned old alerts'),
      );
      expect(pruned).toMatchObject({ removed: 1 });
      expect(await oldAlerts()).toBe(0);
    } finally {
      if (away) await proxy.restore();
      await worker.stop();
      await close();
    }
  });
});
