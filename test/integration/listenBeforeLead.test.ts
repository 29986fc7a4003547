/**
 * `crondeck serve` takes its port before it leads: a start that cannot serve (its port is taken)
 * exits non-zero having fired nothing. Before, it registered itself, took the lead and began the
 * catch-up of a missed slot, then failed to listen and exited, leaving that run behind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEnvironment } from '../../src/config/environment';
import { startService } from '../../src/service';
import { startEmbeddedDatabase } from '../../src/store/embedded';
import { serve } from '../support/cliServe';
import { createTestDatabase } from '../support/database';
import { createMemoryLogger } from '../support/memoryLogger';
import { RawConnection } from '../support/rawHttp';

/** Rows that only a process that ran (registered, led, fired) writes. */
async function traces(dataDir: string): Promise<{ executions: number; processes: number }> {
  const db = await startEmbeddedDatabase({ dataDir });
  try {
    const { rows } = await db.pool.query<{ executions: number; processes: number }>(
      `SELECT (SELECT count(*)::int FROM executions) AS executions,
              (SELECT count(*)::int FROM service_processes) AS processes`,
    );
    return rows[0]!;
  } finally {
    await db.close();
  }
}

describe('a start on a port that is taken', () => {
  let dir: string;
  let taken: Server;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crondeck-taken-port-'));
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => taken.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits non-zero without registering, leading or running the catch-up that is due', async () => {
    const dataDir = join(dir, 'data');
    // A first service creates a job that catches up its latest missed slot, and stops.
    const first = serve(dataDir, {});
    const url = String((await first.waitForLog('crondeck is listening')).url);
    const created = await fetch(`${url}/api/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'catches-up',
        schedule: '* * * * *',
        command: 'echo caught up',
        catchUp: { policy: 'latest', withinSeconds: 3600 },
      }),
    });
    expect(created.status).toBe(201);
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    // Its slots of the last ten minutes are due: as if the service had been down that long.
    {
      const db = await startEmbeddedDatabase({ dataDir });
      await db.pool.query(`UPDATE jobs SET created_at = now() - interval '10 minutes'`);
      await db.pool.query('DELETE FROM slot_cursors');
      await db.pool.query('DELETE FROM service_processes');
      await db.close();
    }
    expect(await traces(dataDir)).toEqual({ executions: 0, processes: 0 });

    const port = String((taken.address() as AddressInfo).port);
    const second = serve(dataDir, { PORT: port });
    const { code } = await second.exited;
    expect(code).not.toBe(0);
    expect(await traces(dataDir)).toEqual({ executions: 0, processes: 0 });
  }, 120_000);
});

describe('a start that fails once it listens', () => {
  it('closes its port, cutting the requests it held, and rejects with the failure', async () => {
    const port = await freePort();
    const db = await createTestDatabase();
    try {
      let held: RawConnection | undefined;
      const failing = startService({
        env: readEnvironment({ PORT: String(port), HOST: '127.0.0.1' }),
        db: { ...db, close: async () => undefined },
        logger: createMemoryLogger(),
        local: { autoTick: false },
        // The real runtime, whose start fails once a request has reached the port.
        wrapRuntime: (runtime) =>
          new Proxy(runtime, {
            get: (target, key) =>
              key === 'start'
                ? async () => {
                    held = new RawConnection(port);
                    await held.ready();
                    held.send('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
                    throw new Error('the runtime could not start');
                  }
                : (Reflect.get(target, key, target) as unknown),
          }),
      });
      await expect(failing).rejects.toThrow('the runtime could not start');
      expect(await held!.response()).toBeNull();
      expect(await connectionRefused(port)).toBe(true);
    } finally {
      await db.close();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}
