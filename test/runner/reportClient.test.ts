import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fitReport, ReportClient, ReportRefusedError } from '../../src/runner/reportClient';

const report = {
  podUid: 'pod-1',
  attempt: 0,
  final: true,
  status: 'success' as const,
  exitCode: 0,
  startedAt: '2026-11-23T10:00:00.000Z',
  finishedAt: '2026-11-23T10:00:01.000Z',
  stdout: 'hello\n',
  stderr: '',
};

/** A service stand-in on loopback that answers each request with the next status of `statuses`. */
async function serviceStandIn(statuses: number[]) {
  const received: { url: string; auth: string | undefined; body: string }[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        url: req.url ?? '',
        auth: req.headers.authorization,
        body: Buffer.concat(chunks).toString(),
      });
      res.statusCode = statuses[received.length - 1] ?? 201;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { received, url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

const SHORTENED_LINE = '[... output shortened to fit the report ...]\n';
const noSleep = async () => undefined;

describe('ReportClient', () => {
  it('posts the report to the job’s endpoint with its token', async () => {
    const service = await serviceStandIn([201]);
    try {
      const client = new ReportClient({ reportUrl: service.url, jobId: 7, token: 'tok', sleep: noSleep });
      expect(await client.send(report)).toEqual({ duplicate: false });
      expect(service.received).toHaveLength(1);
      expect(service.received[0]).toMatchObject({ url: '/api/jobs/7/reports', auth: 'Bearer tok' });
      expect(JSON.parse(service.received[0]!.body)).toEqual(report);
    } finally {
      await service.close();
    }
  });

  it('retries while the service answers 503 or 429, then succeeds; a duplicate answer is a success', async () => {
    const service = await serviceStandIn([503, 429, 502, 200]);
    const retries: number[] = [];
    try {
      const client = new ReportClient({
        reportUrl: service.url,
        jobId: 1,
        token: 't',
        sleep: noSleep,
        onRetry: (_reason, delay) => retries.push(delay),
      });
      expect(await client.send(report)).toEqual({ duplicate: true });
      expect(service.received).toHaveLength(4);
      expect(retries).toEqual([500, 1000, 2000]);
    } finally {
      await service.close();
    }
  });

  it('retries while nothing listens, and reaches the service once it is up', async () => {
    const service = await serviceStandIn([201]);
    const url = service.url;
    await service.close();
    let attempts = 0;
    let revived: Awaited<ReturnType<typeof serviceStandIn>> | undefined;
    const client = new ReportClient({
      reportUrl: url,
      jobId: 1,
      token: 't',
      onRetry: () => undefined,
      sleep: async () => {
        attempts++;
        if (attempts === 2) {
          // Bring a service up on the same port, as a restarted service would be.
          const server = createServer((_req, res) => {
            res.statusCode = 201;
            res.end('{}');
          });
          await new Promise<void>((resolve) =>
            server.listen(Number(new URL(url).port), '127.0.0.1', resolve),
          );
          revived = { received: [], url, close: () => new Promise((r) => server.close(r)) };
        }
      },
    });
    try {
      expect(await client.send(report)).toEqual({ duplicate: false });
      expect(attempts).toBe(2);
    } finally {
      await revived?.close();
    }
  });

  it('does not retry a refusal (403) and says what the service answered', async () => {
    const service = await serviceStandIn([403]);
    try {
      const client = new ReportClient({ reportUrl: service.url, jobId: 1, token: 'bad', sleep: noSleep });
      await expect(client.send(report)).rejects.toBeInstanceOf(ReportRefusedError);
      expect(service.received).toHaveLength(1);
    } finally {
      await service.close();
    }
  });

  it('gives up once its budget is spent', async () => {
    const service = await serviceStandIn(Array(100).fill(503));
    try {
      const client = new ReportClient({
        reportUrl: service.url,
        jobId: 1,
        token: 't',
        budgetMs: 0,
        sleep: noSleep,
      });
      await expect(client.send(report)).rejects.toThrow(
        'gave up sending the report: the service answered 503',
      );
    } finally {
      await service.close();
    }
  });
});

describe('fitReport', () => {
  it('never cuts a character in half', () => {
    const emoji = { ...report, stdout: '\u{1F600}'.repeat(50_000), stderr: '' };
    for (let limit = 60_000; limit < 60_016; limit++) {
      const stdout: string = JSON.parse(fitReport(emoji, limit)).stdout;
      expect(stdout.slice(SHORTENED_LINE.length)).toMatch(/^(\u{1F600})+$/u);
    }
  });

  it('leaves a report that fits as it is', () => {
    expect(JSON.parse(fitReport(report, 10_000))).toEqual(report);
  });

  it('keeps the end of the output when the report is too large, whatever the output is made of', () => {
    const tail = 'THE END\n';
    for (const filler of ['x', '\u0000', '\u00e9', '\u{1F600}', '"']) {
      const big = { ...report, stdout: filler.repeat(300_000) + tail, stderr: filler.repeat(200_000) };
      const json = fitReport(big, 256 * 1024);
      expect(Buffer.byteLength(json)).toBeLessThanOrEqual(256 * 1024);
      const parsed = JSON.parse(json);
      for (const stream of ['stdout', 'stderr']) {
        expect(parsed[stream].startsWith('[... output shortened to fit the report ...]\n')).toBe(true);
        // Most of the room is used, and no character is cut in half.
        expect(parsed[stream].length).toBeGreaterThan(10_000 / filler.length);
        expect(parsed[stream]).not.toMatch(
          /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
        );
      }
      expect(parsed.stdout.endsWith(tail)).toBe(true);
      expect(Buffer.byteLength(json)).toBeGreaterThan(250 * 1024);
      expect(parsed.podUid).toBe('pod-1');
    }
  });
});
