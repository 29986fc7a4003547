import { Client } from 'pg';
import { renderJob } from '../../src/http/routes/jobs';
import type { Database } from '../../src/store/database';
import { createTestDatabase, onPostgresServer } from '../support/database';
import { eventually, startTestService, type TestService } from '../support/service';
import { TcpProxy } from '../support/tcpProxy';

/**
 * A read that does not ask for `Cache-Control: no-cache` may answer what the service kept without
 * a round trip of its own (store/listChangeFeed.ts, `caughtUpRecently`). What it promises: every
 * write made through this replica is on the very next read, and every write of any other process
 * once `SERVICE_READ_STALENESS_MS` has passed; a read asking for no-cache shows every write
 * committed before it came.
 *
 * The service's listening connection goes through a proxy that holds the server's bytes back, so
 * that a notification is always late: a read that trusted what it kept when it should not have
 * would answer the old job, every time, instead of once in a while.
 */
const STALENESS_MS = 400;
/** Less than the staleness: a catch-up answered is still recent for the reads that follow. */
const NOTIFY_DELAY_MS = 80;

const hourly = { name: 'hourly', schedule: '0 * * * *', command: 'echo one' };

(onPostgresServer ? describe : describe.skip)('recent reads, with late notifications', () => {
  let db: Database;
  const proxies: TcpProxy[] = [];
  let url: URL;
  /** A session of another process: a replica, the controller, a script. */
  let elsewhere: Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    url = new URL((db.pool as unknown as { options: { connectionString: string } }).options.connectionString);
    elsewhere = new Client({ connectionString: url.toString() });
    await elsewhere.connect();
  });
  afterAll(async () => {
    await elsewhere.end();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
    await db.close();
  });

  /** The service on `db`, its own sessions (the listening one) `notifyDelayMs` behind the server. */
  async function startService(
    env: Record<string, string>,
    notifyDelayMs = NOTIFY_DELAY_MS,
  ): Promise<TestService> {
    const proxy = new TcpProxy(url.hostname, Number(url.port), { delayToClientMs: notifyDelayMs });
    proxies.push(proxy);
    await proxy.start();
    const proxied = new URL(url);
    proxied.host = `127.0.0.1:${proxy.port}`;
    const service = await startTestService({
      env,
      db: {
        ...db,
        openSession: async () => {
          const client = new Client({ connectionString: proxied.toString() });
          client.on('error', () => undefined);
          await client.connect();
          return client;
        },
      },
    });
    await eventually(() => service.listChanges!.caughtUp());
    return service;
  }

  async function command(service: TestService, id: number, headers: Record<string, string> = {}) {
    const response = await service.request('GET', `/api/jobs/${id}`, undefined, headers);
    expect(response.status).toBe(200);
    return (response.body as { command: string }).command;
  }

  /**
   * Reads until a read is answered from what was kept, with no round trip: the reads of a test
   * then start from there. A read that rendered the job read the database, and the next waits for
   * a catch-up after that statement, as after any of this replica's statements.
   */
  async function settle(service: TestService, id: number, expected: string) {
    const feed = service.listChanges!;
    const recently = jest.spyOn(feed, 'caughtUpRecently');
    try {
      await eventually(async () => {
        recently.mockClear();
        expect(await command(service, id)).toBe(expected);
        return recently.mock.results.some((result) => result.value === true);
      });
    } finally {
      recently.mockRestore();
    }
  }

  describe(`SERVICE_READ_STALENESS_MS=${STALENESS_MS}`, () => {
    let service: TestService;
    let id: number;

    beforeAll(async () => {
      service = await startService({ SERVICE_READ_STALENESS_MS: String(STALENESS_MS) });
    });
    afterAll(async () => {
      await service.stop();
    });
    beforeEach(async () => {
      await db.pool.query('DELETE FROM jobs');
      id = (await service.request('POST', '/api/jobs', hourly)).body.id as number;
      await settle(service, id, 'echo one');
    });

    it('answers a kept job with no round trip while nothing changes', async () => {
      const catchUp = jest.spyOn(service.listChanges!, 'caughtUp');
      for (let read = 0; read < 20; read++) expect(await command(service, id)).toBe('echo one');
      // A read after one of the service's own statements (its runtime syncs each second) waits.
      expect(catchUp.mock.calls.length).toBeLessThan(5);
      catchUp.mockRestore();
    });

    it('shows a write made through this replica on the very next read, each of 10 times', async () => {
      for (let write = 0; write < 10; write++) {
        const put = await service.request('PUT', `/api/jobs/${id}`, { ...hourly, command: `echo ${write}` });
        expect(put.status).toBe(200);
        expect(await command(service, id)).toBe(`echo ${write}`);
      }
    });

    it("shows a write of this replica's connections on the very next read, as a script in it makes one", async () => {
      for (let write = 0; write < 10; write++) {
        await db.pool.query('UPDATE jobs SET command = $1 WHERE id = $2', [`echo ${write}`, id]);
        expect(await command(service, id)).toBe(`echo ${write}`);
      }
    });

    it("shows another process's write at once to a read that asks for Cache-Control: no-cache", async () => {
      for (let write = 0; write < 10; write++) {
        await elsewhere.query('UPDATE jobs SET command = $1 WHERE id = $2', [`echo ${write}`, id]);
        const asked: Record<string, string> =
          write % 2 === 0 ? { 'cache-control': 'no-cache' } : { pragma: 'no-cache' };
        expect(await command(service, id, asked)).toBe(`echo ${write}`);
        await settle(service, id, `echo ${write}`);
      }
    });

    it('answers a recent read with the bytes a fresh read renders', async () => {
      await service.request('PUT', `/api/jobs/${id}`, { ...hourly, command: 'echo two' });
      const kept = await service.request('GET', `/api/jobs/${id}`);
      const again = await service.request('GET', `/api/jobs/${id}`);
      expect(again.text).toBe(kept.text);
      expect(again.text).toBe(renderJob(await service.jobs.get(id)).toString());
      expect(again.headers.get('content-type')).toBe('application/json; charset=utf-8');
    });
  });

  describe('notifications later than SERVICE_READ_STALENESS_MS', () => {
    const staleness = 100;
    const notifyDelay = 300;
    let service: TestService;

    beforeAll(async () => {
      service = await startService({ SERVICE_READ_STALENESS_MS: String(staleness) }, notifyDelay);
    });
    afterAll(async () => {
      await service.stop();
    });

    it("shows another process's write on every read once the staleness has passed", async () => {
      await db.pool.query('DELETE FROM jobs');
      const id = (await service.request('POST', '/api/jobs', hourly)).body.id as number;
      let expected = 'echo one';
      for (let write = 0; write < 3; write++) {
        // Two reads: the second waits for a catch-up after the first one's statement, and leaves
        // the job kept, unchanged by what was seen, with no statement of this replica since.
        expect(await command(service, id)).toBe(expected);
        expect(await command(service, id)).toBe(expected);
        expected = `echo ${write}`;
        await elsewhere.query('UPDATE jobs SET command = $1 WHERE id = $2', [expected, id]);
        // Its notification is still on its way, and so is every catch-up sent after it.
        await new Promise((resolve) => setTimeout(resolve, staleness + 50));
        expect(await command(service, id)).toBe(expected);
      }
    });
  });

  describe('SERVICE_READ_STALENESS_MS=0', () => {
    let service: TestService;

    beforeAll(async () => {
      service = await startService({ SERVICE_READ_STALENESS_MS: '0' });
    });
    afterAll(async () => {
      await service.stop();
    });

    it("shows another process's write on the very next read, each of 10 times", async () => {
      await db.pool.query('DELETE FROM jobs');
      const id = (await service.request('POST', '/api/jobs', hourly)).body.id as number;
      for (let write = 0; write < 10; write++) {
        // A second read, after the one that rendered: one that would be answered from what was kept.
        await command(service, id);
        await elsewhere.query('UPDATE jobs SET command = $1 WHERE id = $2', [`echo ${write}`, id]);
        expect(await command(service, id)).toBe(`echo ${write}`);
      }
    });
  });
});
