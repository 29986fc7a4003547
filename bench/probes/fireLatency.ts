/**
 * The bar of issue 38's defect 15: with thousands of every-minute jobs, the service goes on
 * answering while each minute's runs start. Measures /health's latency around each minute's fire
 * (the first 20 s of the minute) and between fires.
 *
 *   npm run build
 *   node -r ./test/support/registerTypeScript.js bench/probes/fireLatency.ts [jobs] [fires]
 *
 * Defaults: 2000 jobs (`true`, every minute), 3 fires watched. `crondeck serve` runs from dist/
 * with the chart's Node flags on an embedded database of its own, or on DATABASE_URL when set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
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

const JOBS = Number(process.argv[2] ?? 2000);
const FIRES = Number(process.argv[3] ?? 3);
/** Seconds after a minute's start counted as its fire. */
const FIRE_WINDOW_S = 20;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'crondeck-fires-'));
  console.log(
    `${JOBS} every-minute jobs, ${FIRES} fires; node ${process.version} ${chartNodeFlags().join(' ')}; ` +
      `database ${process.env.DATABASE_URL ? 'server' : 'embedded'}`,
  );
  let service: ServiceUnderBar | null = await startServiceUnderBar(dataDir);
  try {
    await createJobs(service.url, JOBS, (n) => ({
      name: `minutely-${n}`,
      schedule: '* * * * *',
      command: 'true',
    }));
    // Watch from the next minute on: the first fire after the creations is the first measured.
    const firstMinute = Math.ceil(Date.now() / 60_000) * 60_000;
    const end = firstMinute + FIRES * 60_000;
    const byMinute = new Map<
      number,
      { fire: number[]; between: number[]; failed: number; livez: number[] }
    >();
    let peakRss = 0;
    while (Date.now() < end) {
      const at = Date.now();
      // /livez beside it: answered in front of the app, without the database (the event loop alone).
      const [latency, livez] = await Promise.all([
        healthLatency(service.url),
        healthLatency(service.url, 5000, '/livez'),
      ]);
      if (at >= firstMinute) {
        const minute = Math.floor(at / 60_000) * 60_000;
        const bucket = byMinute.get(minute) ?? { fire: [], between: [], failed: 0, livez: [] };
        byMinute.set(minute, bucket);
        const firing = at - minute < FIRE_WINDOW_S * 1000;
        if (latency === null) bucket.failed++;
        else (firing ? bucket.fire : bucket.between).push(latency);
        if (firing && livez !== null) bucket.livez.push(livez);
      }
      peakRss = Math.max(peakRss, residentBytes(service.child.pid!) ?? 0);
      await new Promise((done) => setTimeout(done, 100));
    }
    const executions = await (await fetch(`${service.url}/api/stats`)).json();
    await stopWithSigterm(service);
    service = null;
    console.log('\nper minute: /health during the fire (first 20 s) and between fires');
    const allFire: number[] = [];
    for (const [minute, bucket] of byMinute) {
      allFire.push(...bucket.fire);
      console.log(
        `  ${new Date(minute).toISOString().slice(11, 16)}  fire: n ${bucket.fire.length}, ` +
          `p50 ${percentile(bucket.fire, 50).toFixed(1)} ms, p99 ${percentile(bucket.fire, 99).toFixed(1)} ms, ` +
          `max ${Math.max(0, ...bucket.fire).toFixed(1)} ms; between: p99 ` +
          `${percentile(bucket.between, 99).toFixed(1)} ms, max ${Math.max(0, ...bucket.between).toFixed(1)} ms; ` +
          `failed ${bucket.failed}; /livez during the fire max ${Math.max(0, ...bucket.livez).toFixed(1)} ms`,
      );
    }
    console.log(
      `summary: during fires p50 ${percentile(allFire, 50).toFixed(1)} ms, p99 ${percentile(allFire, 99).toFixed(1)} ms, ` +
        `max ${Math.max(0, ...allFire).toFixed(1)} ms; peak RSS ${megabytes(peakRss)}; stats ${JSON.stringify(executions)}`,
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
