/**
 * Stopping without dropping requests: on SIGTERM `crondeck serve` drains (SERVICE_SHUTDOWN_DRAIN_SECONDS:
 * `/health` 503, every answer `Connection: close`, requests still served), then closes its listener
 * and lets the requests in flight finish (SERVICE_SHUTDOWN_GRACE_SECONDS at most), then exits.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { readEnvironment } from '../../src/config/environment';
import { serve } from '../support/cliServe';
import { RawConnection, type RawResponse } from '../support/rawHttp';
import { startTestService } from '../support/service';
const JOB = JSON.stringify({ name: 'sent-slowly', schedule: '@daily', command: 'true' });

/** A POST /api/jobs whose body comes in two parts, so that it is in flight until `finish()`. */
async function slowCreation(
  port: number,
): Promise<{ finish(): void; answer(): Promise<RawResponse | null> }> {
  const connection = new RawConnection(port);
  await connection.ready();
  const half = Math.floor(JOB.length / 2);
  connection.send(
    `POST /api/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(JOB)}\r\n\r\n${JOB.slice(0, half)}`,
  );
  return {
    finish: () => connection.send(JOB.slice(half)),
    answer: () => connection.response(),
  };
}

/** One GET on a connection of its own, read raw (fetch hides `Connection`). */
async function get(port: number, path: string): Promise<RawResponse | null> {
  const connection = new RawConnection(port);
  await connection.ready();
  connection.send(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  try {
    return await connection.response();
  } finally {
    connection.destroy();
  }
}

/** Whether a new connection to the port is refused (the listener is closed). */
function refused(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'));
  });
}

describe('crondeck serve on SIGTERM', () => {
  let dir: string;
  const started: ChildProcess[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'crondeck-drain-'));
  });
  afterAll(() => {
    for (const child of started)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('drains with /health at 503 while it still serves, then answers the request in flight and exits', async () => {
    const service = serve(join(dir, 'drain'), {
      SERVICE_SHUTDOWN_DRAIN_SECONDS: '3',
      SERVICE_SHUTDOWN_GRACE_SECONDS: '20',
    });
    started.push(service.child);
    const port = Number(new URL(String((await service.waitForLog('crondeck is listening')).url)).port);
    expect(await get(port, '/health')).toMatchObject({ status: 200 });

    const inFlight = await slowCreation(port);
    service.child.kill('SIGTERM');
    expect(await service.waitForLog('shutting down')).toMatchObject({ signal: 'SIGTERM', drainSeconds: 3 });
    await service.waitForLog('draining: /health answers 503 while requests are still served');

    const health = await get(port, '/health');
    expect(health).toMatchObject({ status: 503, headers: { connection: 'close' } });
    expect(JSON.parse(health!.body)).toEqual({ status: 'unavailable', error: 'shutting down' });
    // A new request during the drain is served as ever, and told to take its next one elsewhere.
    const jobs = await get(port, '/api/jobs');
    expect(jobs).toMatchObject({ status: 200, headers: { connection: 'close' } });
    expect(JSON.parse(jobs!.body)).toEqual([]);
    expect(await get(port, '/livez')).toMatchObject({ status: 200 });

    // Then the listener closes, and the request in flight is still answered.
    await service.waitForLog('no longer accepting connections; answering the requests in flight');
    expect(await refused(port)).toBe(true);
    inFlight.finish();
    const created = await inFlight.answer();
    expect(created).toMatchObject({ status: 201 });
    expect(JSON.parse(created!.body)).toMatchObject({ name: 'sent-slowly' });
    // Its connection, idle now, is closed rather than kept for a next request.
    expect(await inFlight.answer()).toBeNull();
    expect(await service.exited).toEqual({ code: 0, signal: null });
  }, 120_000);

  it('does not drain on Ctrl-C (SIGINT), whatever SERVICE_SHUTDOWN_DRAIN_SECONDS says', async () => {
    const service = serve(join(dir, 'interrupt'), { SERVICE_SHUTDOWN_DRAIN_SECONDS: '60' });
    started.push(service.child);
    const port = Number(new URL(String((await service.waitForLog('crondeck is listening')).url)).port);
    // Answered: the signal handlers, set as the start returns, are in place (before them a SIGINT
    // would end the process at once).
    expect(await get(port, '/livez')).toMatchObject({ status: 200 });
    const began = Date.now();
    service.child.kill('SIGINT');
    expect(await service.waitForLog('shutting down')).toMatchObject({ signal: 'SIGINT', drainSeconds: 0 });
    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - began).toBeLessThan(20_000);
  }, 120_000);
});

describe('the service’s stop', () => {
  it('drains only where asked: by default in a pod, not on a laptop; a stop without a drain closes at once', async () => {
    // Outside a pod nothing drains unless configured (Ctrl-C on a laptop must not wait), in one it does.
    expect(readEnvironment({}).shutdownDrainSeconds).toBe(0);
    expect(readEnvironment({ KUBERNETES_SERVICE_HOST: '10.96.0.1' }).shutdownDrainSeconds).toBe(10);
    expect(
      readEnvironment({ KUBERNETES_SERVICE_HOST: '10.96.0.1', SERVICE_SHUTDOWN_DRAIN_SECONDS: '0' })
        .shutdownDrainSeconds,
    ).toBe(0);
    const service = await startTestService();
    const began = Date.now();
    await service.stop();
    expect(Date.now() - began).toBeLessThan(5_000);
  });

  it('waits for the requests in flight, and a second stop without a drain ends the drain at once', async () => {
    const service = await startTestService();
    const port = (service.server.address() as AddressInfo).port;
    const inFlight = await slowCreation(port);
    const began = Date.now();
    const stopped = service.stop({ drainSeconds: 60 });
    expect((await get(port, '/health'))?.status).toBe(503);
    void service.stop();
    await new Promise((done) => setTimeout(done, 300));
    expect(await refused(port)).toBe(true);
    inFlight.finish();
    expect(await inFlight.answer()).toMatchObject({ status: 201 });
    await stopped;
    expect(Date.now() - began).toBeLessThan(10_000);
  });

  it('cuts a request still in flight at the end of SERVICE_SHUTDOWN_GRACE_SECONDS', async () => {
    const service = await startTestService({ env: { SERVICE_SHUTDOWN_GRACE_SECONDS: '1' } });
    const inFlight = await slowCreation((service.server.address() as AddressInfo).port);
    const began = Date.now();
    await service.stop();
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);
    expect(Date.now() - began).toBeLessThan(8_000);
    expect(await inFlight.answer()).toBeNull();
    expect(
      service.logger.lines.some(
        (line) =>
          line.msg ===
          'requests still in flight at the end of the grace period; their connections are closed',
      ),
    ).toBe(true);
  });
});
