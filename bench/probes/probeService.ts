/**
 * The service for a probe: `crondeck serve` from the sources (as `test/support/serviceProcess.ts`
 * runs it, through swc, so nothing needs building), in a process of its own, started with the node
 * flags and environment the image and the chart give the API (`bench/shippedStart.ts`: the chart's
 * `api.nodeOptions` caps the old generation), on the embedded database in a fresh data directory or
 * on the PostgreSQL server of `DATABASE_URL`. A probe reads its memory from /proc and talks to it
 * over HTTP on loopback only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shippedStart } from '../shippedStart';

const REPO_ROOT = join(__dirname, '..', '..');
/** How long the service may take to start (a fresh embedded database initialises in 6–8 s). */
const START_TIMEOUT_MS = 120_000;

export interface ProbeService {
  url: string;
  pid: number;
  /** Resident memory now and its peak so far (VmRSS, VmHWM), in bytes. */
  memory(): { rss: number; peakRss: number };
  stop(): Promise<void>;
}

export async function startProbeService(env: Record<string, string> = {}): Promise<ProbeService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'crondeck-probe-'));
  const shipped = shippedStart('api');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...shipped.nodeArgs,
      '-r',
      join(REPO_ROOT, 'test/support/registerTypeScript.js'),
      join(REPO_ROOT, 'src/cli.ts'),
      'serve',
    ],
    {
      cwd: REPO_ROOT,
      env: {
        ...shipped.env,
        PATH: process.env.PATH ?? '',
        HOME: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        SERVICE_DATA_DIR: join(dataDir, 'data'),
        // A PostgreSQL server when the probe is given one (`npm run -s db:throwaway -- start`).
        ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let lastWords = '';
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error('the service did not start in time')), START_TIMEOUT_MS);
    child.once('exit', (code) =>
      reject(new Error(`the service exited with ${code}: ${buffered.slice(-2000)}`)),
    );
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered = (buffered + chunk.toString()).slice(-100_000);
      lastWords = buffered.slice(-3_000);
      const listening = /"msg":"crondeck is listening".*?"url":"([^"]+)"/.exec(buffered);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]!);
      }
    });
  });
  const pid = child.pid!;
  let stopping = false;
  child.once('exit', (code, signal) => {
    // Not the way `stop` ends it (a crash: out of memory, a fatal error), whenever it came.
    if (!stopping || (signal !== 'SIGTERM' && code !== 0)) {
      process.stderr.write(
        `the service exited (code ${code}, signal ${signal}); its last words:\n${lastWords}\n`,
      );
    }
  });
  return {
    url,
    pid,
    memory() {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kib = (field: string) =>
        Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
      return { rss: kib('VmRSS'), peakRss: kib('VmHWM') };
    },
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The `p`-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
