import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { LocalRuntimeSettings } from '../../src/runtime/createRuntime';

const ROOT = resolve(__dirname, '../..');

/** One line of the service's structured log. */
interface LogLine {
  msg: string;
  [field: string]: unknown;
}

export interface ChildService {
  child: ChildProcess;
  pid: number;
  lines: LogLine[];
  /** Resolves with the first log line that `match` accepts, or rejects after `timeoutMs`. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  // Tests read whatever shape the endpoint answers.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Ends the process (SIGKILL) if it still runs. */
  kill(): void;
}

/**
 * The real service in a process of its own (test/support/serviceProcess.ts) on `databaseUrl`,
 * resolved once it listens.
 */
export async function startChildService(
  databaseUrl: string,
  local: LocalRuntimeSettings = {},
): Promise<ChildService> {
  const child = spawn(
    process.execPath,
    [
      '-r',
      resolve(ROOT, 'test/support/registerTypeScript.js'),
      resolve(ROOT, 'test/support/serviceProcess.ts'),
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        DATABASE_URL: databaseUrl,
        CRONDECK_TEST_LOCAL: JSON.stringify(local),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: LogLine[] = [];
  let pending = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const complete = pending.split('\n');
    pending = complete.pop()!;
    for (const text of complete) if (text.trim()) lines.push(JSON.parse(text) as LogLine);
    for (const wake of waiters) wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  void exited.then(() => {
    for (const wake of waiters) wake();
  });

  const waitForLog = (match: (line: LogLine) => boolean, timeoutMs = 20_000): Promise<LogLine> =>
    new Promise((done, fail) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        fail(
          new Error(
            `no such log line within ${timeoutMs} ms; log:\n${lines.map((l) => JSON.stringify(l)).join('\n')}\n${stderr}`,
          ),
        );
      }, timeoutMs);
      function check() {
        const found = lines.find(match);
        if (found || child.exitCode !== null || child.signalCode !== null) {
          clearTimeout(timer);
          waiters.delete(check);
          if (found) done(found);
          else fail(new Error(`the service exited: ${stderr}`));
        }
      }
      waiters.add(check);
      check();
    });

  const listening = await waitForLog((line) => line.msg === 'crondeck is listening');
  const url = String(listening.url);
  return {
    child,
    pid: child.pid!,
    lines,
    waitForLog,
    async request(method, path, body) {
      const response = await fetch(url + path, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
