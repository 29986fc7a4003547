/**
 * What the bar scripts of this folder share: `crondeck serve` from dist/ (`npm run build` first) as
 * a process of its own, with the chart's Node flags, on an embedded database in a directory of the
 * script's (or on DATABASE_URL), and the probes they read it with: /health's latency and the
 * process's resident memory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');

/** The chart's `api.nodeOptions` (charts/crondeck/values.yaml), read from it. */
export function chartNodeFlags(): string[] {
  const values = readFileSync(resolve(ROOT, 'charts/crondeck/values.yaml'), 'utf8');
  const api = values.slice(values.indexOf('\napi:'));
  const flags = /\n {2}nodeOptions: (.+)\n/.exec(api)?.[1];
  if (!flags) throw new Error('no api.nodeOptions in charts/crondeck/values.yaml');
  return flags.trim().split(/\s+/);
}

/** The chart's api memory limit in bytes. */
export function chartMemoryLimitBytes(): number {
  const values = readFileSync(resolve(ROOT, 'charts/crondeck/values.yaml'), 'utf8');
  const api = values.slice(values.indexOf('\napi:'));
  const limit = /\n {4}limits:\n {6}memory: (\d+)Mi\n/.exec(api)?.[1];
  if (!limit) throw new Error('no api.resources.limits.memory in charts/crondeck/values.yaml');
  return Number(limit) * 1024 * 1024;
}

export interface ServiceUnderBar {
  child: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Log lines (JSON objects) so far. */
  lines: Record<string, unknown>[];
}

/** Starts `crondeck serve` (dist/cli.js) with the chart's flags; resolves once it listens. */
export async function startServiceUnderBar(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ServiceUnderBar> {
  // BAR_CLI: another build to measure (say an earlier commit's, for a figure from before a change).
  const cli = process.env.BAR_CLI ?? resolve(ROOT, 'dist/cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
  // BAR_NODE_FLAGS: more flags for the service (say `--cpu-prof --cpu-prof-dir=DIR` to see where its time goes).
  const extra = process.env.BAR_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...chartNodeFlags(), ...extra, cli, 'serve'], {
    cwd: resolve(cli, '../..'),
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: process.env.DATABASE_URL ?? '',
      SERVICE_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      SERVICE_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let pending = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  const url = await new Promise<string>((done, fail) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const complete = pending.split('\n');
      pending = complete.pop()!;
      for (const text of complete) {
        if (!text.startsWith('{')) continue;
        const line = JSON.parse(text) as Record<string, unknown>;
        lines.push(line);
        if (line.msg === 'crondeck is listening') done(String(line.url));
      }
    });
    void exited.then(({ code, signal }) =>
      fail(new Error(`the service ended (${code ?? signal}) before listening`)),
    );
  });
  return { child, url, exited, lines };
}

/** The resident memory of a process in bytes (VmRSS), or null once it is gone. */
export function residentBytes(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * One /health request (or `path`: /livez answers without the database): its latency in ms, or
 * null when it failed or took longer than `timeoutMs`.
 */
export async function healthLatency(url: string, timeoutMs = 5000, path = '/health'): Promise<number | null> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.ok ? performance.now() - started : null;
  } catch {
    return null;
  }
}

/** Percentile `p` (0–100) of `values`. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** Creates `count` jobs through the API, `concurrency` requests at a time. */
export async function createJobs(
  url: string,
  count: number,
  body: (n: number) => Record<string, unknown>,
  concurrency = 8,
): Promise<number[]> {
  const ids: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const n = next++;
        const response = await fetch(`${url}/api/jobs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body(n)),
        });
        if (response.status !== 201)
          throw new Error(`creating job ${n}: ${response.status} ${await response.text()}`);
        ids.push(((await response.json()) as { id: number }).id);
      }
    }),
  );
  return ids;
}

/** Stops the service with SIGTERM; resolves to the seconds it took to exit (null: killed after `limitS`). */
export async function stopWithSigterm(service: ServiceUnderBar, limitS = 120): Promise<number | null> {
  const started = performance.now();
  service.child.kill('SIGTERM');
  const ended = await Promise.race([
    service.exited.then(() => true),
    new Promise<false>((done) => setTimeout(() => done(false), limitS * 1000)),
  ]);
  if (!ended) {
    service.child.kill('SIGKILL');
    await service.exited;
    return null;
  }
  return (performance.now() - started) / 1000;
}
