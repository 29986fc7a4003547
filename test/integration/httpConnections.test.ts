/**
 * The service's HTTP connections as a proxy in front of it meets them: keep-alive that outlasts
 * the proxies' idle timeouts (SERVICE_KEEP_ALIVE_TIMEOUT_SECONDS), requests Node cannot parse
 * answered in JSON, `/livez`, and `--host ::` on both address families.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEnvironment } from '../../src/config/environment';
import { serve } from '../support/cliServe';
import { RawConnection } from '../support/rawHttp';
import { startTestService, type TestService } from '../support/service';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const portOf = (service: TestService) => (service.server.address() as AddressInfo).port;
const GET_LIVEZ = 'GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

describe('keep-alive', () => {
  it('defaults to 65 s, above the 60 s idle timeouts of AWS ALB and ingress-nginx, headers timeout above it', async () => {
    expect(readEnvironment({}).keepAliveTimeoutSeconds).toBe(65);
    const service = await startTestService();
    try {
      expect(service.server.keepAliveTimeout).toBe(65_000);
      expect(service.server.headersTimeout).toBeGreaterThan(service.server.keepAliveTimeout);
      expect(service.server.requestTimeout).toBeGreaterThanOrEqual(service.server.headersTimeout);
      const answer = await service.request('GET', '/livez');
      expect(answer.headers.get('keep-alive')).toBe('timeout=65');
    } finally {
      await service.stop();
    }
  });

  it('serves a connection that was idle for longer than Node’s default of 5 s', async () => {
    const service = await startTestService();
    const connection = new RawConnection(portOf(service));
    try {
      await connection.ready();
      connection.send(GET_LIVEZ);
      expect(await connection.response()).toMatchObject({ status: 200 });
      // Node closes an idle connection a second after its timeout (HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER):
      // with its default of 5 s, at 6 s.
      await sleep(7_000);
      expect(connection.closed).toBe(false);
      connection.send(GET_LIVEZ);
      expect(await connection.response()).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    } finally {
      connection.destroy();
      await service.stop();
    }
  }, 20_000);

  it('keeps an idle connection as long as SERVICE_KEEP_ALIVE_TIMEOUT_SECONDS says, then closes it', async () => {
    const service = await startTestService({ env: { SERVICE_KEEP_ALIVE_TIMEOUT_SECONDS: '1' } });
    const connection = new RawConnection(portOf(service));
    try {
      expect(service.server.keepAliveTimeout).toBe(1_000);
      expect(service.server.headersTimeout).toBeGreaterThan(1_000);
      await connection.ready();
      connection.send(GET_LIVEZ);
      expect((await connection.response())?.headers['keep-alive']).toBe('timeout=1');
      await sleep(400);
      expect(connection.closed).toBe(false);
      // Node closes it a second after the advertised timeout (HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER).
      await sleep(2_600);
      expect(connection.closed).toBe(true);
    } finally {
      connection.destroy();
      await service.stop();
    }
  });
});

describe('requests Node cannot parse', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  const answerTo = async (raw: string) => {
    const connection = new RawConnection(portOf(service));
    try {
      await connection.ready();
      connection.send(raw);
      return await connection.response();
    } finally {
      connection.destroy();
    }
  };

  it('answers headers over the limit with 431 and a JSON error naming the limit', async () => {
    const answer = await answerTo(
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatchObject({ status: 431 });
    expect(answer!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer!.headers.connection).toBe('close');
    expect(JSON.parse(answer!.body)).toEqual({
      error: 'request headers are larger than the limit of 16384 bytes',
    });
  });

  it('answers malformed HTTP with 400 and a JSON error saying what is wrong', async () => {
    for (const raw of ['NOT-HTTP\r\n\r\n', 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n']) {
      const answer = await answerTo(raw);
      expect(answer).toMatchObject({ status: 400 });
      expect(answer!.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(answer!.body)).toEqual({
        error: expect.stringMatching(/^malformed HTTP request: \S/),
      });
    }
  });

  it('goes on serving other connections', async () => {
    expect((await service.request('GET', '/livez')).status).toBe(200);
  });
});

describe('/livez', () => {
  it('answers 200 { status: "ok" } to GET and HEAD, open without the API token', async () => {
    const service = await startTestService({ env: { SERVICE_API_TOKEN: 'a-token-of-sixteen-chars' } });
    try {
      const answer = await service.request('GET', '/livez');
      expect(answer).toMatchObject({ status: 200, body: { status: 'ok' } });
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect((await service.request('HEAD', '/livez')).status).toBe(200);
      expect((await service.request('GET', '/livez/?probe=1')).status).toBe(200);
      expect((await service.request('POST', '/livez')).status).toBe(404);
    } finally {
      await service.stop();
    }
  });
});

describe('--host ::', () => {
  it('listens on every address of both families', async () => {
    const service = await startTestService({ env: { HOST: '::' } });
    try {
      expect(service.server.address()).toMatchObject({ address: '::', family: 'IPv6' });
      const port = portOf(service);
      for (const host of ['127.0.0.1', '[::1]']) {
        expect((await fetch(`http://${host}:${port}/livez`)).status).toBe(200);
      }
    } finally {
      await service.stop();
    }
  });

  describe('where the kernel has no IPv6', () => {
    let dir: string;
    let withoutIpv6: string;
    const started: ChildProcess[] = [];
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'crondeck-no-ipv6-'));
      // Preloaded (`node -r`): the process's sockets refuse IPv6 at bind, as a kernel built
      // without it does (EAFNOSUPPORT), where an explicit `::` fails.
      withoutIpv6 = join(dir, 'kernel-without-ipv6.js');
      writeFileSync(
        withoutIpv6,
        "const { TCP } = process.binding('tcp_wrap');\n" +
          "const { EAFNOSUPPORT } = require('node:os').constants.errno;\n" +
          'TCP.prototype.bind6 = () => -EAFNOSUPPORT;\n',
      );
    });
    afterAll(() => {
      for (const child of started)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });

    it('`crondeck serve --host ::` listens on every IPv4 address rather than failing', async () => {
      const service = serve(
        join(dir, 'data'),
        { SERVICE_API_TOKEN: 'a-token-of-sixteen-chars' },
        { args: ['--host', '::'], preload: [withoutIpv6] },
      );
      started.push(service.child);
      const url = new URL(String((await service.waitForLog('crondeck is listening')).url));
      expect(url.hostname).toBe('0.0.0.0');
      expect((await fetch(`http://127.0.0.1:${url.port}/livez`)).status).toBe(200);
      service.child.kill('SIGTERM');
      expect(await service.exited).toEqual({ code: 0, signal: null });
    }, 120_000);
  });
});
