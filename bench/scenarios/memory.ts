/**
 * The service's resident memory, as the memory issue asks for it: `node dist/cli.js serve` as a
 * process of its own, once on a PostgreSQL server (a fresh database of the throwaway server) and
 * once on the embedded default (PGlite in a fresh data directory). Each is read idle after start,
 * loaded as the scheduler scenario loads the bench's service (1,000 jobs, a history of executions,
 * the list and job reads under autocannon, some runs recorded), and read again right after the
 * load and once it has idled.
 *
 * Every reading has its breakdown: process.memoryUsage() and V8's heap spaces, and the
 * WebAssembly memory that holds PGlite's whole Postgres (a WebAssembly.Memory only ever grows).
 * They come from a probe preloaded into the service process (`node --require`, bench only: the
 * service itself exposes nothing for it), which writes them to a file on SIGWINCH. The resident
 * part of the WebAssembly memory is read from /proc/PID/smaps. With BENCH_HEAP_SNAPSHOT=1 each
 * service also writes a heap snapshot at the end, summarised in .bench/memory-heap-KIND.md (the
 * evidence behind docs/benchmarks/memory.md).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import {
  type BenchContext,
  formatMegabytes,
  formatNumber,
  LOAD_SECONDS,
  markdownTable,
  sleep,
  type ServiceProcess,
  WARMUP_SECONDS,
  WORK_DIR,
} from '../harness';
import { describeShippedStart, startShippedService } from '../shippedStart';

const JOBS = 1_000;
const EXECUTIONS = 100_000;
const RUNS_RECORDED = 200;
/** How long the service is left alone before an idle reading. */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 15);
const MB = 1024 * 1024;
/** Issue 22: idle after the load, as the image and the chart run the service. */
const BARS = { server: 120 * MB, embedded: 200 * MB } as const;
type DatabaseKind = keyof typeof BARS;

/** Preloaded into the service process: answers SIGWINCH with its memory, written to a file. */
const PROBE_SOURCE = `'use strict';
const { writeFileSync, renameSync } = require('node:fs');
const v8 = require('node:v8');
const out = process.env.CRONDECK_BENCH_MEMORY_FILE;
const memories = [];
const Original = WebAssembly.Memory;
// PGlite makes its memory with new WebAssembly.Memory: keep each one to read its size.
WebAssembly.Memory = class extends Original {
  constructor(descriptor) {
    super(descriptor);
    memories.push(new WeakRef(this));
  }
};
process.on('SIGWINCH', () => {
  const live = memories.map((ref) => ref.deref()).filter(Boolean);
  const reading = {
    usage: process.memoryUsage(),
    spaces: Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size])),
    wasmBytes: live.reduce((sum, memory) => sum + memory.buffer.byteLength, 0),
    wasmMemories: live.length,
  };
  writeFileSync(out + '.tmp', JSON.stringify(reading));
  renameSync(out + '.tmp', out);
});
`;

interface ProbeReading {
  usage: NodeJS.MemoryUsage;
  /** Physical bytes of each V8 heap space (new_space, old_space, code_space, ...). */
  spaces: Record<string, number>;
  wasmBytes: number;
  wasmMemories: number;
}

interface Reading extends ProbeReading {
  label: string;
  rssBytes: number;
  /** Resident bytes of the WebAssembly memory's mapping (0 without PGlite). */
  wasmResidentBytes: number;
}

interface LoadRate {
  path: string;
  requestsPerSec: number;
  non2xx: number;
}

interface KindResult {
  kind: DatabaseKind;
  readings: Reading[];
  rates: LoadRate[];
  snapshot?: string;
}

export async function run(ctx: BenchContext): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'crondeck-bench-memory-'));
  const probe = join(work, 'probe.js');
  writeFileSync(probe, PROBE_SOURCE);
  try {
    const results: KindResult[] = [];
    const only = process.env.BENCH_MEMORY_DATABASES?.split(',');
    for (const kind of ['server', 'embedded'] as const) {
      if (only && !only.includes(kind)) continue;
      console.log(`  ${kind} database`);
      results.push(await measureKind(ctx, kind, work, probe));
    }
    report(ctx, results);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function measureKind(
  ctx: BenchContext,
  kind: DatabaseKind,
  work: string,
  probe: string,
): Promise<KindResult> {
  const dataDir = join(work, `data-${kind}`);
  const probeFile = join(work, `memory-${kind}.json`);
  const databaseUrl = kind === 'server' ? await ctx.freshDatabase('crondeck_memory') : '';
  const snapshotDir = join(work, `snapshot-${kind}`);
  const takeSnapshot = process.env.BENCH_HEAP_SNAPSHOT === '1';
  mkdirSync(snapshotDir, { recursive: true });
  const service = await startShippedService({
    databaseUrl,
    name: `service-memory-${kind}`,
    env: { SERVICE_DATA_DIR: dataDir, CRONDECK_BENCH_MEMORY_FILE: probeFile },
    nodeArgs: [
      '--require',
      probe,
      ...(takeSnapshot ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`] : []),
    ],
  });
  try {
    const readings: Reading[] = [];
    await sleep(IDLE_SECONDS * 1000);
    readings.push(await read(service, probeFile, 'idle after start'));

    console.log(`    seeding ${formatNumber(JOBS)} jobs and ${formatNumber(EXECUTIONS)} executions`);
    const jobIds = await createJobs(service.url);
    await seedExecutions(
      kind === 'server' ? { connectionString: databaseUrl } : { host: socketDir(dataDir) },
    );
    console.log(`    ${RUNS_RECORDED} runs recorded, then the reads under load`);
    await recordRuns(service.url, jobIds);
    const rates = await loadReads(service.url, jobIds[7]!);
    readings.push(await read(service, probeFile, 'right after the load'));
    await sleep(IDLE_SECONDS * 1000);
    readings.push(await read(service, probeFile, `idle ${IDLE_SECONDS} s after the load`));

    let snapshot: string | undefined;
    if (takeSnapshot) {
      console.log('    heap snapshot');
      snapshot = summariseSnapshot(await writeSnapshot(service, snapshotDir));
    }
    return { kind, readings, rates, snapshot };
  } finally {
    await service.stop();
  }
}

/** The embedded database's private socket directory (src/store/privateSocketDir.ts). */
function socketDir(dataDir: string): string {
  return join(dataDir, '.crondeck-socket');
}

async function read(service: ServiceProcess, probeFile: string, label: string): Promise<Reading> {
  const before = mtimeOf(probeFile);
  process.kill(service.pid, 'SIGWINCH');
  const deadline = Date.now() + 10_000;
  while (mtimeOf(probeFile) === before) {
    if (Date.now() > deadline) throw new Error('the memory probe did not answer within 10 s');
    await sleep(20);
  }
  const probe = JSON.parse(readFileSync(probeFile, 'utf8')) as ProbeReading;
  const reading = {
    label,
    ...probe,
    rssBytes: service.rssBytes(),
    wasmResidentBytes: wasmResident(service.pid, probe.wasmBytes),
  };
  console.log(
    `    ${label}: RSS ${formatMegabytes(reading.rssBytes)}, heap ${formatMegabytes(probe.usage.heapUsed)} ` +
      `of ${formatMegabytes(probe.usage.heapTotal)}, external ${formatMegabytes(probe.usage.external)}, ` +
      `WebAssembly ${formatMegabytes(probe.wasmBytes)} (resident ${formatMegabytes(reading.wasmResidentBytes)})`,
  );
  return reading;
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * The resident bytes of the WebAssembly memory: V8 reserves it with guard regions, and the part
 * in use is one anonymous read-write mapping of exactly the memory's size.
 */
function wasmResident(pid: number, wasmBytes: number): number {
  if (wasmBytes === 0) return 0;
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  let resident = 0;
  for (const block of smaps.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
    const size = Number(/^Size:\s+(\d+) kB/m.exec(block)?.[1] ?? 0) * 1024;
    if (size === wasmBytes) resident += Number(/^Rss:\s+(\d+) kB/m.exec(block)?.[1] ?? 0) * 1024;
  }
  return resident;
}

/** 1,000 jobs through the API, as people write them: daily schedules, so none fires meanwhile. */
async function createJobs(url: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 1; i <= JOBS; i++) {
    const response = await fetch(`${url}/api/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `memory-job-${String(i).padStart(4, '0')}`,
        schedule: `${i % 60} ${i % 24} * * ${i % 4 === 0 ? '1-5' : '*'}`,
        command: 'true',
        description: `Benchmark job number ${i}, created by bench/scenarios/memory.ts`,
        tags: ['bench', `team-${i % 7}`],
        ...(i % 5 === 0 ? { timezone: 'Europe/Berlin' } : {}),
        ...(i % 4 === 0 ? { retry: { maxAttempts: 2, baseDelay: 5 } } : {}),
      }),
    });
    const body = (await response.json()) as { id: number };
    if (response.status !== 201) throw new Error(`POST /api/jobs answered ${response.status}`);
    ids.push(body.id);
  }
  return ids;
}

/** A history of executions, one every 2 s going back from now, as the scheduler scenario seeds it. */
async function seedExecutions(connection: { connectionString: string } | { host: string }): Promise<void> {
  const client = new Client({ ...connection, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    await client.query(
      `WITH j AS (SELECT id, name, (row_number() OVER (ORDER BY id) - 1)::int AS k FROM jobs),
            n AS (SELECT count(*)::int AS jobs FROM jobs)
       INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code,
                               stdout, stderr, attempt)
       SELECT j.id, j.name, s.status, s.started_at, s.started_at + s.duration_ms * interval '1 ms',
              s.duration_ms, CASE s.status WHEN 'success' THEN 0 ELSE 1 END,
              CASE WHEN s.status = 'success' THEN 'processed ' || s.i || E' items\\n' ELSE '' END,
              CASE WHEN s.status = 'failed' THEN E'error: upstream answered 503\\n' ELSE '' END, 0
       FROM (SELECT i, CASE WHEN i % 13 = 0 THEN 'failed' ELSE 'success' END AS status,
                    now() - i * interval '2 seconds' AS started_at,
                    ((i::bigint * 7919) % 30000)::int AS duration_ms
             FROM generate_series(1, $1::int) AS i) s
       CROSS JOIN n
       JOIN j ON j.k = s.i % n.jobs`,
      [EXECUTIONS],
    );
    await client.query('VACUUM ANALYZE executions');
  } finally {
    await client.end();
  }
}

/** Runs fired by hand (`POST /api/jobs/:id/run`), each a real `true` recorded by the service. */
async function recordRuns(url: string, jobIds: number[]): Promise<void> {
  for (let i = 0; i < RUNS_RECORDED; i++) {
    const response = await fetch(`${url}/api/jobs/${jobIds[i % jobIds.length]}/run`, { method: 'POST' });
    await response.arrayBuffer();
  }
  // Let them finish before the reads.
  await sleep(2000);
}

/** The scheduler scenario's reads, each a warm-up and LOAD_SECONDS at 10 connections. */
async function loadReads(url: string, someJob: number): Promise<LoadRate[]> {
  const rates: LoadRate[] = [];
  for (const path of [
    '/api/jobs',
    '/api/executions?limit=50',
    `/api/jobs/${someJob}`,
    `/api/executions?jobId=${someJob}&limit=50`,
  ]) {
    const settings = { url: url + path, connections: 10, timeout: 10 };
    if (WARMUP_SECONDS > 0) await autocannon({ ...settings, duration: WARMUP_SECONDS });
    const result = await autocannon({ ...settings, duration: LOAD_SECONDS });
    rates.push({ path, requestsPerSec: result.requests.total / result.duration, non2xx: result.non2xx });
  }
  return rates;
}

async function writeSnapshot(service: ServiceProcess, dir: string): Promise<string> {
  const files = () => {
    try {
      return readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot'));
    } catch {
      return [];
    }
  };
  process.kill(service.pid, 'SIGUSR2');
  const deadline = Date.now() + 120_000;
  for (;;) {
    const [file] = files();
    // V8 writes the file in one go and then returns: wait until its size stops moving.
    if (file) {
      const path = join(dir, file);
      const size = statSync(path).size;
      await sleep(1000);
      if (size > 0 && statSync(path).size === size) return path;
    } else if (Date.now() > deadline) {
      throw new Error('no heap snapshot within 120 s');
    } else {
      await sleep(200);
    }
  }
}

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** What a heap snapshot holds: self sizes by node type, and the largest by constructor or name. */
function summariseSnapshot(path: string): string {
  const heap = JSON.parse(readFileSync(path, 'utf8')) as HeapSnapshot;
  const fields = heap.snapshot.meta.node_fields;
  const typeNames = heap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const byType = new Map<string, number>();
  const byName = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < heap.nodes.length; i += fields.length) {
    const type = typeNames[heap.nodes[i + typeAt]!]!;
    const size = heap.nodes[i + sizeAt]!;
    byType.set(type, (byType.get(type) ?? 0) + size);
    const name = `${type}: ${heap.strings[heap.nodes[i + nameAt]!]!.slice(0, 60)}`;
    const entry = byName.get(name) ?? { bytes: 0, count: 0 };
    entry.bytes += size;
    entry.count += 1;
    byName.set(name, entry);
  }
  const total = [...byType.values()].reduce((a, b) => a + b, 0);
  const top = [...byName.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 15);
  return [
    `Heap snapshot: ${formatMegabytes(total)} of self sizes.`,
    '',
    markdownTable(
      ['node type', 'self size'],
      [...byType.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([type, bytes]) => [type, formatMegabytes(bytes)]),
    ),
    '',
    markdownTable(
      ['largest by type: name', 'nodes', 'self size'],
      top.map(([name, { bytes, count }]) => [
        name.replace(/\s+/g, ' '),
        formatNumber(count),
        formatMegabytes(bytes),
      ]),
    ),
  ].join('\n');
}

function report(ctx: BenchContext, results: KindResult[]): void {
  for (const result of results) {
    const idle = result.readings[result.readings.length - 1]!;
    ctx.bar({
      measure: `RSS idle after the load, ${result.kind === 'server' ? 'PostgreSQL server' : 'embedded PGlite'}`,
      target: `≤ ${formatMegabytes(BARS[result.kind])}`,
      measured: formatMegabytes(idle.rssBytes),
      met: idle.rssBytes <= BARS[result.kind],
    });
  }
  const rows = results.flatMap((result) =>
    result.readings.map((r) => [
      result.kind,
      r.label,
      formatMegabytes(r.rssBytes),
      formatMegabytes(r.usage.heapTotal),
      formatMegabytes(r.usage.heapUsed),
      formatMegabytes(r.spaces.new_space ?? NaN),
      formatMegabytes(r.spaces.code_space ?? NaN),
      formatMegabytes(r.usage.external),
      formatMegabytes(r.usage.arrayBuffers),
      r.wasmMemories > 0 ? `${formatMegabytes(r.wasmBytes)} (${formatMegabytes(r.wasmResidentBytes)})` : '—',
    ]),
  );
  ctx.report(
    'Resident memory',
    [
      `\`node dist/cli.js serve\` as a process of its own, started as the image's entrypoint and the chart start it: ` +
        `${describeShippedStart('api', 'serve')}; on a fresh database of the throwaway server and ` +
        `on the embedded default in a fresh data directory. Load: ${formatNumber(JOBS)} jobs created ` +
        `through the API, ${formatNumber(EXECUTIONS)} executions inserted in SQL, ${RUNS_RECORDED} runs ` +
        `fired by hand, then each read below for a ${WARMUP_SECONDS} s warm-up and ${LOAD_SECONDS} s at ` +
        `10 connections. Idle readings come after ${IDLE_SECONDS} s alone. Heap: V8's; new space: ` +
        'its young generation, part of the heap; external: memory V8 objects hold outside the heap ' +
        "(array buffers among it, the WebAssembly memory too); WebAssembly: the size of PGlite's " +
        'memory (its resident part in brackets, from /proc/PID/smaps). What held the memory before ' +
        'and after the changes of the memory issue, from heap snapshots: ' +
        '[docs/benchmarks/memory.md](docs/benchmarks/memory.md).',
      '',
      markdownTable(
        [
          'database',
          'when',
          'RSS',
          'heap total',
          'heap used',
          'new space',
          'code space',
          'external',
          'array buffers',
          'WebAssembly (resident)',
        ],
        rows,
      ),
      '',
      'Reads during the load (service only; compare with the scheduler scenario for the ceilings):',
      '',
      markdownTable(
        ['database', ...results[0]!.rates.map((r) => `\`GET ${r.path}\` req/s`)],
        results.map((result) => [
          result.kind,
          ...result.rates.map(
            (r) => `${formatNumber(r.requestsPerSec)}${r.non2xx > 0 ? ` (${r.non2xx} non-2xx)` : ''}`,
          ),
        ]),
      ),
    ].join('\n'),
  );
  for (const result of results) {
    if (!result.snapshot) continue;
    // Evidence for docs/benchmarks/memory.md, which is written by hand: it compares snapshots
    // taken before and after the changes, which one run cannot take.
    const file = join(WORK_DIR, `memory-heap-${result.kind}.md`);
    writeFileSync(file, `${result.snapshot}\n`);
    console.log(`  heap snapshot of the ${result.kind} database's service summarised in ${file}`);
  }
}
