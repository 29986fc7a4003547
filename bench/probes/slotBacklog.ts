/**
 * The bar of issue 38's defect 8: a service whose jobs' ledger cursors are months behind (a
 * restore, a long outage, rows written by SQL) stays up, under the chart's memory limit, with
 * /health answering within 1 s, and stops on SIGTERM within the pod's termination grace.
 *
 *   npm run build
 *   node -r ./test/support/registerTypeScript.js bench/probes/slotBacklog.ts [jobs] [days] [seconds]
 *
 * Defaults: 1000 every-minute jobs, cursors 180 days behind, watched for 300 s. `crondeck serve`
 * runs from dist/ with the chart's Node flags (api.nodeOptions) on an embedded database of its
 * own, or on DATABASE_URL when set, and the chart's drain and grace (10 s each, of a termination
 * grace of 40 s). Prints what it saw as it goes and a summary at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedDatabase } from '../../src/store/embedded';
import {
  chartMemoryLimitBytes,
  chartNodeFlags,
  createJobs,
  healthLatency,
  megabytes,
  percentile,
  residentBytes,
  type ServiceUnderBar,
  startServiceUnderBar,
  stopWithSigterm,
} from './serviceUnderBar';

const JOBS = Number(process.argv[2] ?? 1000);
const DAYS = Number(process.argv[3] ?? 180);
const SECONDS = Number(process.argv[4] ?? 300);
const CHART_SHUTDOWN = { SERVICE_SHUTDOWN_DRAIN_SECONDS: '10', SERVICE_SHUTDOWN_GRACE_SECONDS: '10' };
const TERMINATION_GRACE_S = 40;

const MOVE_CURSORS_BACK = `UPDATE slot_cursors SET judged_until = judged_until - make_interval(days => $1),
  due_at = NULL, last_slot_at = NULL, last_outcome = NULL`;

async function moveCursorsBack(dataDir: string): Promise<void> {
  if (process.env.DATABASE_URL) {
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(MOVE_CURSORS_BACK, [DAYS]);
    await client.end();
    return;
  }
  const db = await startEmbeddedDatabase({ dataDir });
  await db.pool.query(MOVE_CURSORS_BACK, [DAYS]);
  await db.close();
}

async function slotsJudged(url: string): Promise<string> {
  try {
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    return [...text.matchAll(/^service_slots_total\{outcome="(\w+)"\} (\d+)/gm)]
      .filter((match) => match[2] !== '0')
      .map((match) => `${match[1]} ${match[2]}`)
      .join(', ');
  } catch {
    return '(no answer)';
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'crondeck-backlog-'));
  const limit = chartMemoryLimitBytes();
  console.log(
    `${JOBS} every-minute jobs, cursors ${DAYS} days behind, ${SECONDS} s; node ${process.version} ` +
      `${chartNodeFlags().join(' ')}; memory limit ${megabytes(limit)}; ` +
      `database ${process.env.DATABASE_URL ? 'server' : 'embedded'}`,
  );
  let service: ServiceUnderBar | null = await startServiceUnderBar(dataDir, {
    SERVICE_SHUTDOWN_DRAIN_SECONDS: '0',
  });
  try {
    await createJobs(service.url, JOBS, (n) => ({
      name: `minutely-${n}`,
      schedule: '* * * * *',
      command: 'true',
    }));
    await stopWithSigterm(service);
    service = null;
    await moveCursorsBack(dataDir);

    service = await startServiceUnderBar(dataDir, CHART_SHUTDOWN);
    const pid = service.child.pid!;
    const started = performance.now();
    const latencies: number[] = [];
    let failures = 0;
    let peakRss = 0;
    let alive = true;
    void service.exited.then(() => (alive = false));
    const rssTimer = setInterval(() => {
      const rss = residentBytes(pid);
      if (rss !== null) peakRss = Math.max(peakRss, rss);
    }, 250);
    const url = service.url;
    const progressTimer = setInterval(async () => {
      const at = ((performance.now() - started) / 1000).toFixed(0);
      const rss = residentBytes(pid);
      console.log(
        `${at} s: rss ${rss === null ? 'gone' : megabytes(rss)} (peak ${megabytes(peakRss)}), ` +
          `/health max ${Math.max(0, ...latencies).toFixed(0)} ms over ${latencies.length}, ` +
          `failed ${failures}; judged: ${await slotsJudged(url)}`,
      );
    }, 15_000);
    while (alive && performance.now() - started < SECONDS * 1000) {
      const latency = await healthLatency(url);
      if (latency === null) failures++;
      else latencies.push(latency);
      await new Promise((done) => setTimeout(done, 200));
    }
    clearInterval(progressTimer);
    clearInterval(rssTimer);
    const judged = alive ? await slotsJudged(url) : '(the service is gone)';
    const stayedUp = alive;
    const stopS = alive ? await stopWithSigterm(service) : null;
    const exit = await service.exited;
    service = null;
    console.log('\nsummary');
    console.log(`  stayed up:        ${stayedUp ? 'yes' : `no (exit ${exit.code ?? exit.signal})`}`);
    console.log(`  peak RSS:         ${megabytes(peakRss)} (limit ${megabytes(limit)})`);
    console.log(
      `  /health:          ${latencies.length} answered, ${failures} failed or over 5 s; ` +
        `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, ` +
        `max ${Math.max(0, ...latencies).toFixed(1)} ms`,
    );
    console.log(`  judged:           ${judged}`);
    console.log(
      `  SIGTERM to exit:  ${stopS === null ? 'n/a' : `${stopS.toFixed(1)} s`} (drain 10 s + grace 10 s; termination grace ${TERMINATION_GRACE_S} s)`,
    );
  } finally {
    if (service) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
