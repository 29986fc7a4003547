/**
 * However many connections come, the service keeps descriptors for its jobs and its database: it
 * serves SERVICE_MAX_CONNECTIONS at once and closes the others as they arrive. Before, ~20,000 idle
 * connections took every descriptor, and the next job's spawn failed with EMFILE as an unhandled
 * 'error' that ended the process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEnvironment } from '../../src/config/environment';
import { serve } from '../support/cliServe';
import { RawConnection, type RawResponse } from '../support/rawHttp';
import { eventually, startTestService } from '../support/service';

const GET_LIVEZ = 'GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
const LIMIT_REACHED = 'connection limit reached: new connections are closed as they arrive';

/** A request on a kept connection, and its answer. */
async function ask(connection: RawConnection, method: string, path: string, body?: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const type = body === undefined ? '' : 'Content-Type: application/json\r\n';
  connection.send(
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${type}` +
      `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
  const response = (await connection.response()) as RawResponse;
  return { status: response.status, body: response.body ? JSON.parse(response.body) : undefined };
}

/** Opens `count` sockets that send nothing; resolves once each is connected or closed. */
async function flood(port: number, count: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((settled) => {
          const socket = connect(port, '127.0.0.1');
          sockets.push(socket);
          socket.once('connect', () => settled());
          socket.once('close', () => settled());
          socket.on('error', () => undefined);
        }),
    ),
  );
  return sockets;
}

describe('SERVICE_MAX_CONNECTIONS', () => {
  it('defaults to 1000, and a bad value is refused by name', () => {
    expect(readEnvironment({}).maxConnections).toBe(1000);
    expect(readEnvironment({ SERVICE_MAX_CONNECTIONS: '20' }).maxConnections).toBe(20);
    expect(() => readEnvironment({ SERVICE_MAX_CONNECTIONS: '0' })).toThrow(
      'invalid environment: SERVICE_MAX_CONNECTIONS: must be at least 1',
    );
  });

  it('serves that many connections at once, closes the next as it comes, and serves again once one ends', async () => {
    const service = await startTestService({ env: { SERVICE_MAX_CONNECTIONS: '3' } });
    const port = (service.server.address() as AddressInfo).port;
    const kept: RawConnection[] = [];
    const opened: RawConnection[] = [];
    try {
      expect(service.server.maxConnections).toBe(3);
      for (let n = 0; n < 3; n++) {
        const connection = new RawConnection(port);
        kept.push(connection);
        opened.push(connection);
        await connection.ready();
        connection.send(GET_LIVEZ);
        expect(await connection.response()).toMatchObject({ status: 200 });
      }
      const refused = new RawConnection(port);
      opened.push(refused);
      refused.send(GET_LIVEZ);
      expect(await refused.response()).toBeNull();
      expect(service.logger.lines.find((line) => line.msg === LIMIT_REACHED)).toMatchObject({
        level: 'warn',
        maxConnections: 3,
        dropped: 1,
      });

      kept[0]!.destroy();
      const served = await eventually(async () => {
        const connection = new RawConnection(port);
        opened.push(connection);
        connection.send(GET_LIVEZ);
        return connection.response();
      });
      expect(served).toMatchObject({ status: 200 });
    } finally {
      for (const connection of opened) connection.destroy();
      await service.stop();
    }
  });
});

describe('a flood of idle connections on a process with few descriptors', () => {
  let dir: string;
  const services: ReturnType<typeof serve>[] = [];
  const sockets: Socket[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'crondeck-flood-'));
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
    for (const service of services.splice(0)) service.child.kill('SIGKILL');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * `crondeck serve` whose open-file limit is lowered, once it listens, to what it holds plus
   * `spare`; a kept connection opened before the flood; a job that prints `ran`.
   */
  async function starvedService(name: string, env: Record<string, string>, spare: number) {
    const service = serve(join(dir, name), env);
    services.push(service);
    const url = new URL(String((await service.waitForLog('crondeck is listening')).url));
    const pid = service.child.pid!;
    const held = readdirSync(`/proc/${pid}/fd`).length;
    execFileSync('prlimit', [`--pid=${pid}`, `--nofile=${held + spare}:${held + spare}`]);
    const kept = new RawConnection(Number(url.port));
    await kept.ready();
    const job = await ask(kept, 'POST', '/api/jobs', {
      name: 'prints',
      schedule: '@daily',
      command: 'echo ran',
    });
    expect(job.status).toBe(201);
    return { service, port: Number(url.port), kept, jobId: job.body.id as number, limit: held + spare };
  }

  const finishedRun = (kept: RawConnection, jobId: number) =>
    eventually(async () => {
      const list = await ask(kept, 'GET', `/api/executions?jobId=${jobId}`);
      const [execution] = list.body as { id: number; status: string }[];
      return execution && execution.status !== 'running' ? execution : null;
    }, 20_000);

  it('still runs its jobs when the connections stop at the limit', async () => {
    const { service, port, kept, jobId } = await starvedService(
      'limited',
      { SERVICE_MAX_CONNECTIONS: '40' },
      100,
    );
    sockets.push(...(await flood(port, 300)));
    await service.waitForLog(LIMIT_REACHED);

    expect((await ask(kept, 'POST', `/api/jobs/${jobId}/run`)).status).toBe(200);
    const execution = await finishedRun(kept, jobId);
    const read = await ask(kept, 'GET', `/api/executions/${execution.id}`);
    expect(read.body).toMatchObject({ status: 'success', stdout: 'ran\n' });
  }, 90_000);

  it('without a limit below the descriptors, fails the run with the reason and lives on', async () => {
    const { service, port, kept, jobId, limit } = await starvedService(
      'unlimited',
      { SERVICE_MAX_CONNECTIONS: '1000000' },
      100,
    );
    // Said at start: a million connections leave nothing of the process's descriptors.
    await service.waitForLog(
      'SERVICE_MAX_CONNECTIONS leaves too few of the open-file limit for jobs and the database: lower it, or raise the limit (ulimit -n)',
    );
    sockets.push(...(await flood(port, 300)));
    // Every descriptor of the process is taken (libuv keeps one in reserve to shed connections with).
    await eventually(async () => readdirSync(`/proc/${service.child.pid}/fd`).length >= limit - 1);

    expect(await ask(kept, 'POST', `/api/jobs/${jobId}/run`)).toMatchObject({ status: 200 });
    await service.waitForLog('could not start a command');
    for (const socket of sockets.splice(0)) socket.destroy();
    const execution = await finishedRun(kept, jobId);

    // A new connection is served again, by the same process.
    const after = await eventually(async () => {
      const connection = new RawConnection(port);
      connection.send(GET_LIVEZ);
      const answer = await connection.response();
      connection.destroy();
      return answer;
    });
    expect(after).toMatchObject({ status: 200 });
    const read = await ask(kept, 'GET', `/api/executions/${execution.id}`);
    expect(read.body).toMatchObject({ status: 'failed', exitCode: 127, reason: 'StartError' });
    expect(read.body.stderr).toContain('[crondeck] could not start the command: spawn /bin/sh EMFILE');
    expect(service.child.exitCode).toBeNull();
  }, 90_000);
});
