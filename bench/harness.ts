/**
 * The shared bench harness. `bench/run.ts` builds one `BenchContext` per run (a throwaway
 * PostgreSQL 15 server, the service as a separate process) and hands it to every scenario.
 *
 * A scenario is a module `bench/scenarios/NAME.ts` that exports `run(ctx: BenchContext)` (or
 * `NAMEScenario(ctx)`); `npm run bench -- NAME` runs only that one. Scenarios seed with `ctx.sql`, drive the service
 * with `ctx.load` (or `compareWithCeilings`, which also measures the two ceilings answering the
 * same bytes) and write their tables with `ctx.report`.
 *
 * Figures on a shared 2-core machine move from run to run; the ratios to the ceilings measured
 * in the same run, with the same settings, are what hold.
 */
import { type ChildProcess, execFile, fork, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';
import { Client, Pool } from 'pg';
import type { CeilingResponse } from './ceilings/response';

interface LoadResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  bytesPerRequest: number;
}

export interface BenchContext {
  /** Throwaway PostgreSQL 15 server, migrated, running. */
  databaseUrl: string;
  /** Crondeck started as a separate process (node dist/cli.js serve) against databaseUrl. */
  serviceUrl: string;
  /** Direct pg pool. */
  sql<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
  /**
   * A new, empty database `name` on the same server (dropped first if it exists); its URL. For a
   * measure that needs a service of its own: the bench's service leads the shared database, and a
   * second service on it would hand its runs to that leader.
   */
  freshDatabase(name: string): Promise<string>;
  /** Autocannon against serviceUrl. */
  load(options: LoadOptions): Promise<LoadResult>;
  /**
   * Direct SQL latency, one statement after another on one connection: a number of runs, or as many
   * as fit in a number of seconds (to compare with an autocannon run of as long). By default as a
   * client types it: parsed and planned on every run. With `preparedAs`, as the service runs the
   * label filters: prepared under that name on a connection that plans it once (a generic plan).
   */
  timeSql(
    text: string,
    values: unknown[],
    budget: SqlBudget,
    preparedAs?: string,
  ): Promise<{ p50Ms: number; p99Ms: number }>;
  /**
   * Appended to BENCHMARKS.md, under the running scenario. A `detail` section (query plans, index
   * listings: what backs a finding rather than states it) goes to docs/benchmarks/NAME.md instead,
   * linked from the scenario's section, so that BENCHMARKS.md stays readable.
   */
  report(section: string, markdown: string, options?: { detail?: boolean }): void;
  /** A target of an issue and whether this run met it: listed first, and in the summary on top. */
  bar(bar: Bar): void;
  /** One sentence worth knowing before the tables (a pause, a limit): listed under the bars. */
  finding(text: string): void;
}

export interface Bar {
  /** What is measured, e.g. "GET /api/jobs/:id, × Express". */
  measure: string;
  /** The target, e.g. "≥ 1.5". */
  target: string;
  /** This run's figure, formatted. */
  measured: string;
  met: boolean;
}

interface ReportedSection {
  section: string;
  markdown: string;
  detail: boolean;
}

type SqlBudget = { iterations: number } | { seconds: number };

export interface LoadOptions {
  path: string;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  connections?: number;
  durationSeconds?: number;
}

/** What a scenario module exports (as `run` or `NAMEScenario`). */
export type Scenario = (ctx: BenchContext) => Promise<void>;

/** Seconds measured per load run, after a warm-up run whose figures are thrown away. */
export const LOAD_SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
/** `compareWithCeilings` splits the measured seconds of each target into this many rounds. */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
export const DEFAULT_CONNECTIONS = 10;

/** The first bar of the foundation issue: half the minimal Express route, p99 under 10 ms. */
export const BAR = { minRatioToExpress: 0.5, maxP99Ms: 10 };

/** The repository root (the folder of crondeck's package.json), wherever the bench is compiled to. */
export const REPO_ROOT = findRepoRoot(__dirname);

function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'crondeck') return dir;
    if (dirname(dir) === dir) throw new Error(`no crondeck package.json above ${from}`);
  }
}

/**
 * A module of the service's build (dist/, made by `npm run build`), typed as its source: scenarios
 * that run parts of the service in-process use the same code as the service process.
 */
export function fromBuild<M>(modulePath: string): M {
  return require(join(REPO_ROOT, 'dist', `${modulePath}.js`)) as M;
}

/** Where the bench keeps logs, profiles and temporary files (git-ignored). */
export const WORK_DIR = join(REPO_ROOT, '.bench');

// ---------------------------------------------------------------------------------------------
// Load

/**
 * Autocannon against `baseUrl + options.path`: a warm-up run, then the measured run. Latencies
 * are taken from every 2xx response at full precision (autocannon's own histogram rounds to
 * whole milliseconds, too coarse for sub-millisecond endpoints).
 */
async function loadUrl(baseUrl: string, options: LoadOptions): Promise<LoadResult> {
  await warmUp(baseUrl, options);
  return summarise([await measureOnce(baseUrl, options, options.durationSeconds ?? LOAD_SECONDS)]);
}

/** What one autocannon run saw. */
interface Sample {
  completed: number;
  seconds: number;
  non2xx: number;
  bytes: number;
  latencies: number[];
}

function autocannonSettings(baseUrl: string, options: LoadOptions) {
  return {
    url: baseUrl + options.path,
    method: options.method ?? 'GET',
    body: options.body,
    headers: options.headers,
    connections: options.connections ?? DEFAULT_CONNECTIONS,
    timeout: 10,
  };
}

async function warmUp(baseUrl: string, options: LoadOptions): Promise<void> {
  if (WARMUP_SECONDS <= 0) return;
  await autocannon({ ...autocannonSettings(baseUrl, options), duration: WARMUP_SECONDS });
}

async function measureOnce(baseUrl: string, options: LoadOptions, seconds: number): Promise<Sample> {
  const settings = autocannonSettings(baseUrl, options);
  const latencies: number[] = [];
  const instance = autocannon({ ...settings, duration: seconds });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await instance;
  if (result.errors > 0 || result.timeouts > 0) {
    console.warn(`  ${settings.url}: ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return {
    completed: result.requests.total,
    seconds: result.duration,
    non2xx: result.non2xx,
    bytes: result.throughput.total,
    latencies,
  };
}

function summarise(samples: readonly Sample[]): LoadResult {
  const completed = samples.reduce((sum, s) => sum + s.completed, 0);
  const seconds = samples.reduce((sum, s) => sum + s.seconds, 0);
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  return {
    requestsPerSec: seconds > 0 ? completed / seconds : 0,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    non2xx: samples.reduce((sum, s) => sum + s.non2xx, 0),
    bytesPerRequest: completed > 0 ? Math.round(samples.reduce((sum, s) => sum + s.bytes, 0) / completed) : 0,
  };
}

/** The p-quantile (0..1) of ascending `sorted`, nearest rank; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank]!;
}

// ---------------------------------------------------------------------------------------------
// Ceilings

export type { CeilingResponse };

export interface Ceilings {
  expressUrl: string;
  httpUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts the two ceilings as processes of their own (as the service is): a minimal Express 5 app
 * with one route and a bare node:http server, both answering `response`.
 */
export async function startCeilings(response: CeilingResponse): Promise<Ceilings> {
  const { urls, stop } = await startCeilingProcesses(response, ['expressCeiling.js', 'httpCeiling.js']);
  return { expressUrl: urls[0]!, httpUrl: urls[1]!, stop };
}

/**
 * Starts the ceilings of bench/ceilings/ named by `files` (compiled), each a process of its own
 * answering `response`; their URLs in that order, and how to stop them all.
 */
export async function startCeilingProcesses(
  response: CeilingResponse,
  files: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ urls: string[]; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'crondeck-ceiling-'));
  const bodyFile = join(dir, 'body');
  writeFileSync(bodyFile, response.body);
  const env = {
    ...process.env,
    ...extraEnv,
    CEILING_BODY_FILE: bodyFile,
    CEILING_PATH: response.path,
    CEILING_METHOD: response.method,
    CEILING_STATUS: String(response.status),
    CEILING_CONTENT_TYPE: response.contentType,
  };
  const started: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((child) => stopChild(child)));
  };
  try {
    const urls = await Promise.all(
      files.map(async (file) => {
        const child = track(fork(join(__dirname, 'ceilings', file), [], { env, stdio: 'inherit' }));
        started.push(child);
        return `http://127.0.0.1:${await announcedPort(child)}`;
      }),
    );
    return { urls, stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    // Both have read the body by the time they listen (or are gone).
    rmSync(dir, { recursive: true, force: true });
  }
}

function announcedPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a ceiling did not start within 10 s')), 10_000);
    child.once('message', (message: { port: number }) => {
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`a ceiling exited with code ${code} before listening`));
    });
  });
}

export interface CeilingComparison {
  label: string;
  service: LoadResult;
  express: LoadResult;
  http: LoadResult;
  /** Service requests/s as a fraction of the minimal Express route's. */
  vsExpress: number;
  /** Service requests/s as a fraction of the bare node:http server's. */
  vsHttp: number;
  /** Bytes of the response body that all three answered. */
  bodyBytes: number;
}

/**
 * Measures the service's endpoint and, with the same settings in the same run, the two ceilings
 * answering the exact bytes that the endpoint answers now (fetched once, before the runs). Each
 * target gets a warm-up, then the measured seconds in `ROUNDS` alternating rounds.
 */
export async function compareWithCeilings(
  ctx: BenchContext,
  label: string,
  options: LoadOptions,
): Promise<CeilingComparison> {
  const method = options.method ?? 'GET';
  const answer = await fetch(ctx.serviceUrl + options.path, {
    method,
    headers: options.headers,
    body: options.body,
  });
  const body = Buffer.from(await answer.arrayBuffer());
  if (answer.status < 200 || answer.status >= 300) {
    throw new Error(`${method} ${options.path} answered ${answer.status}: ${body.toString().slice(0, 200)}`);
  }
  const ceilings = await startCeilings({
    path: new URL(options.path, 'http://x').pathname,
    method,
    status: answer.status,
    contentType: answer.headers.get('content-type') ?? 'application/octet-stream',
    body,
  });
  try {
    // Rounds alternate the three targets, so that a neighbour's burst on this shared machine
    // falls on all of them rather than on one.
    const targets = [
      { name: 'service', url: ctx.serviceUrl },
      { name: 'Express ceiling', url: ceilings.expressUrl },
      { name: 'node:http ceiling', url: ceilings.httpUrl },
    ];
    const seconds = (options.durationSeconds ?? LOAD_SECONDS) / ROUNDS;
    const samples: Sample[][] = targets.map(() => []);
    for (const target of targets) await warmUp(target.url, options);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, target] of targets.entries()) {
        console.log(`  ${label}: ${target.name}, round ${round} of ${ROUNDS}`);
        samples[i]!.push(await measureOnce(target.url, options, seconds));
      }
    }
    const [service, express, http] = samples.map(summarise) as [LoadResult, LoadResult, LoadResult];
    return {
      label,
      service,
      express,
      http,
      vsExpress: service.requestsPerSec / express.requestsPerSec,
      vsHttp: service.requestsPerSec / http.requestsPerSec,
      bodyBytes: body.length,
    };
  } finally {
    await ceilings.stop();
  }
}

/** True when a comparison meets the first bar (≥ 0.5 of the Express route, p99 under 10 ms). */
export function meetsBar(comparison: CeilingComparison): boolean {
  return comparison.vsExpress >= BAR.minRatioToExpress && comparison.service.p99Ms < BAR.maxP99Ms;
}

/** A markdown table of comparisons, one row per endpoint. */
export function comparisonTable(comparisons: readonly CeilingComparison[]): string {
  return markdownTable(
    [
      'endpoint',
      'service req/s',
      '× Express',
      '× node:http',
      'p50 ms',
      'p99 ms',
      'Express req/s (p99 ms)',
      'node:http req/s (p99 ms)',
      'body bytes',
      'non-2xx',
      `bar (≥ ${BAR.minRatioToExpress} × Express, p99 < ${BAR.maxP99Ms} ms)`,
    ],
    comparisons.map((c) => [
      c.label,
      formatNumber(c.service.requestsPerSec),
      c.vsExpress.toFixed(2),
      c.vsHttp.toFixed(2),
      c.service.p50Ms.toFixed(2),
      c.service.p99Ms.toFixed(2),
      `${formatNumber(c.express.requestsPerSec)} (${c.express.p99Ms.toFixed(2)})`,
      `${formatNumber(c.http.requestsPerSec)} (${c.http.p99Ms.toFixed(2)})`,
      formatNumber(c.bodyBytes),
      String(c.service.non2xx),
      meetsBar(c) ? 'met' : '**missed**',
    ]),
  );
}

// ---------------------------------------------------------------------------------------------
// The service as a process

export interface ServiceProcess {
  url: string;
  pid: number;
  /** Milliseconds from spawn to the first 200 on /health. */
  startupMs: number;
  /** Resident set size now, in bytes. */
  rssBytes(): number;
  stop(): Promise<void>;
}

/**
 * Starts `node dist/cli.js serve` against `databaseUrl` on a free loopback port and waits for the
 * first 200 on /health. `SERVICE_*` variables of the caller's environment are not passed on (a
 * token there would turn every request into a 401). Logs go to `.bench/logs/`.
 */
/**
 * With `BENCH_CPU_PROFILE_DIR` set, each service process writes a CPU profile there when it stops
 * (`node --cpu-prof`), to find where a scenario's time goes.
 */
function profileArgs(): string[] {
  const dir = process.env.BENCH_CPU_PROFILE_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

export async function startServiceProcess(options: {
  databaseUrl: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
  name?: string;
  /** The node binary (default: the bench's own). */
  node?: string;
}): Promise<ServiceProcess> {
  const cli = join(REPO_ROOT, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" (npm run bench does)`);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('SERVICE_') && key !== 'PORT' && key !== 'HOST') env[key] = value;
  }
  Object.assign(env, { DATABASE_URL: options.databaseUrl, SERVICE_LOG_LEVEL: 'warn' }, options.env);
  const logDir = join(WORK_DIR, 'logs');
  mkdirSync(logDir, { recursive: true });
  const log = openSync(join(logDir, `${options.name ?? 'service'}.log`), 'a');
  const started = performance.now();
  const child = track(
    spawn(
      options.node ?? process.execPath,
      [
        ...(options.nodeArgs ?? []),
        ...profileArgs(),
        cli,
        'serve',
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
      ],
      { cwd: REPO_ROOT, env, stdio: ['ignore', log, log] },
    ),
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, child);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  const startupMs = performance.now() - started;
  return {
    url,
    pid: child.pid!,
    startupMs,
    rssBytes: () => residentBytes(child.pid!),
    stop: () => stopChild(child),
  };
}

async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the service exited (${child.exitCode ?? child.signalCode}) before answering /health`);
    }
    try {
      const response = await fetch(`${url}/health`);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(5);
  }
  throw new Error(`the service did not answer /health within ${timeoutMs} ms`);
}

/** Every process the harness started and has not seen exit, so that `stopAll` can end them. */
const children = new Set<ChildProcess>();

export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Stops every service and ceiling process still running (bench/run.ts calls it on the way out). */
export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((child) => stopChild(child)));
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function residentBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return kb ? Number(kb[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The throwaway PostgreSQL server (scripts/throwaway-postgres.sh)

export interface ThrowawayPostgres {
  databaseUrl: string;
  dir: string;
  stop(): Promise<void>;
}

/**
 * The throwaway PostgreSQL 15 server, fsync off; `durable` leaves fsync, synchronous_commit and
 * full_page_writes on, as a production server has them (for the measures of durable writes).
 */
export async function startThrowawayPostgres(
  options: { durable?: boolean } = {},
): Promise<ThrowawayPostgres> {
  const script = join(REPO_ROOT, 'scripts', 'throwaway-postgres.sh');
  const stdout = await run('bash', [script, 'start'], options.durable ? { PG_DURABLE: '1' } : {});
  const databaseUrl = /^DATABASE_URL=(.+)$/m.exec(stdout)?.[1];
  const dir = /^PG_THROWAWAY_DIR=(.+)$/m.exec(stdout)?.[1];
  if (!databaseUrl || !dir) throw new Error(`unexpected output of ${script} start:\n${stdout}`);
  let stopped: Promise<void> | undefined;
  return {
    databaseUrl,
    dir,
    stop: () => (stopped ??= run('bash', [script, 'stop', dir]).then(() => undefined)),
  };
}

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The context

export interface OwnedBenchContext extends BenchContext {
  /** Sections reported so far, in order. */
  readonly sections: ReportedSection[];
  /** Bars and findings reported so far, in order. */
  readonly bars: Bar[];
  readonly findings: string[];
  close(): Promise<void>;
}

export function createBenchContext(options: { databaseUrl: string; serviceUrl: string }): OwnedBenchContext {
  const pool = new Pool({ connectionString: options.databaseUrl, max: 4 });
  pool.on('error', () => undefined);
  const sections: ReportedSection[] = [];
  const bars: Bar[] = [];
  const findings: string[] = [];
  const sql = async <R>(text: string, values?: unknown[]): Promise<R[]> =>
    (await pool.query(text, values)).rows as R[];
  // One connection for the statements timed as prepared: it keeps them, and their plans, between calls.
  let plannedOnce: Promise<Client> | undefined;
  const plannedOnceClient = () =>
    (plannedOnce ??= (async () => {
      const client = new Client({ connectionString: options.databaseUrl });
      await client.connect();
      await client.query('SET plan_cache_mode = force_generic_plan');
      return client;
    })());
  return {
    databaseUrl: options.databaseUrl,
    serviceUrl: options.serviceUrl,
    sections,
    bars,
    findings,
    sql,
    async freshDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a database name: ${name}`);
      await sql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await sql(`CREATE DATABASE ${name}`);
      const url = new URL(options.databaseUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    load: (loadOptions) => loadUrl(options.serviceUrl, loadOptions),
    async timeSql(text, values, budget, preparedAs) {
      if (!preparedAs) {
        const client = await pool.connect();
        try {
          return latencySummary(await timeStatement(() => client.query(text, values), budget));
        } finally {
          client.release();
        }
      }
      const client = await plannedOnceClient();
      return latencySummary(
        await timeStatement(() => client.query({ name: preparedAs, text, values }), budget),
      );
    },
    report(section, markdown, reportOptions) {
      sections.push({ section, markdown, detail: reportOptions?.detail ?? false });
    },
    bar(bar) {
      bars.push(bar);
    },
    finding(text) {
      findings.push(text);
    },
    async close() {
      await (await plannedOnce)?.end();
      await pool.end();
    },
  };
}

/**
 * Runs a statement back to back within `budget`, after 20 runs not counted; the latency of each
 * run, in ms.
 */
async function timeStatement(run: () => Promise<unknown>, budget: SqlBudget): Promise<number[]> {
  for (let i = 0; i < 20; i++) await run();
  const times: number[] = [];
  const deadline = 'seconds' in budget ? performance.now() + budget.seconds * 1000 : Infinity;
  const iterations = 'iterations' in budget ? budget.iterations : Infinity;
  while (times.length < iterations && performance.now() < deadline) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times;
}

function latencySummary(times: number[]): { p50Ms: number; p99Ms: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
}

// ---------------------------------------------------------------------------------------------
// Formatting

export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export function formatNumber(value: number, fractionDigits = 0): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', {
    minimumFractionDigits: fractionDigits,
    maximumFractionDigits: fractionDigits,
  });
}

export function formatMegabytes(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : 'n/a';
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
