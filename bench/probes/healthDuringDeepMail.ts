/**
 * `node -r ./test/support/registerTypeScript.js bench/probes/healthDuringDeepMail.ts [MESSAGES]`:
 * how `/health` answers while messages whose HTML body nests 200,000 `<div>`s (2.2 MB, well under
 * the 25 MiB limit) arrive as `message/rfc822` (issue 38, finding 14). One client sends the
 * messages one after the other; another asks `/health` every 20 ms, each with a 10 s deadline (a
 * request past it counts as 10 s). Prints each message's status and time and the percentiles of
 * `/health` over the whole time the messages were arriving.
 */
import { percentile, startProbeService } from './probeService';

const DEPTH = 200_000;
const HEALTH_DEADLINE_MS = 10_000;
const HEALTH_GAP_MS = 20;

function deepMessage(depth: number): Buffer {
  const html = '<div>'.repeat(depth) + 'deep' + '</div>'.repeat(depth);
  return Buffer.from(
    [
      'From: ann@example.com',
      'To: bob@example.com',
      'Subject: deep',
      'Date: Mon, 6 May 2024 10:00:00 +0200',
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      '',
      html,
      '',
    ].join('\r\n'),
  );
}

async function timedHealth(url: string): Promise<number> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(HEALTH_DEADLINE_MS) });
    await response.arrayBuffer();
  } catch {
    return HEALTH_DEADLINE_MS;
  }
  return performance.now() - started;
}

async function main(): Promise<void> {
  const messages = Number(process.argv[2] ?? 3);
  const service = await startProbeService();
  try {
    // The same polling with no message arriving: what this machine gives anyway.
    const idle: number[] = [];
    const idleUntil = performance.now() + 5_000;
    while (performance.now() < idleUntil) {
      idle.push(await timedHealth(service.url));
      await new Promise((resolve) => setTimeout(resolve, HEALTH_GAP_MS));
    }
    const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
    process.stdout.write(
      `/health with no message arriving: ${idle.length} requests, p50 ${fmt(percentile(idle, 50))}, ` +
        `p90 ${fmt(percentile(idle, 90))}, max ${fmt(Math.max(...idle))}\n`,
    );
    const source = deepMessage(DEPTH);
    process.stdout.write(`message: ${source.length} bytes, ${DEPTH} nested <div>s\n`);
    let sending = true;
    const latencies: number[] = [];
    const poller = (async () => {
      while (sending) {
        latencies.push(await timedHealth(service.url));
        await new Promise((resolve) => setTimeout(resolve, HEALTH_GAP_MS));
      }
    })();
    for (let i = 0; i < messages; i++) {
      const started = performance.now();
      const response = await fetch(`${service.url}/api/messages?identity_id=1`, {
        method: 'POST',
        headers: { 'content-type': 'message/rfc822' },
        body: source,
      });
      const body = await response.text();
      const seconds = ((performance.now() - started) / 1000).toFixed(2);
      process.stdout.write(`message ${i + 1}: ${response.status} ${body.slice(0, 120)} in ${seconds} s\n`);
    }
    sending = false;
    await poller;
    process.stdout.write(
      `/health while they arrived: ${latencies.length} requests, p50 ${fmt(percentile(latencies, 50))}, ` +
        `p90 ${fmt(percentile(latencies, 90))}, max ${fmt(Math.max(...latencies))}, ` +
        `${latencies.filter((ms) => ms >= HEALTH_DEADLINE_MS).length} past the ${HEALTH_DEADLINE_MS / 1000} s deadline\n`,
    );
  } finally {
    await service.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
