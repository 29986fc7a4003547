import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

export interface LogLine {
  msg: string;
  [field: string]: unknown;
}

/**
 * `crondeck serve` from the sources, on an embedded database of its own in `dataDir` (whatever the
 * suite runs on), with `env` on a clean slate; its log lines (JSON on stderr) as they come.
 * `args` follow `serve`; `preload` are modules node loads first (`-r`).
 */
export function serve(
  dataDir: string,
  env: Record<string, string>,
  { args = [], preload = [] }: { args?: string[]; preload?: string[] } = {},
) {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...preload.flatMap((module) => ['-r', module]),
      '-r',
      join(ROOT, 'test/support/registerTypeScript.js'),
      join(ROOT, 'src/cli.ts'),
      'serve',
      ...args,
    ],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        NODE_OPTIONS: '',
        DATABASE_URL: '',
        SERVICE_DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const lines: LogLine[] = [];
  let pending = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    pending += chunk.toString();
    const complete = pending.split('\n');
    pending = complete.pop()!;
    for (const text of complete) if (text.startsWith('{')) lines.push(JSON.parse(text) as LogLine);
    for (const wake of waiters) wake();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  void exited.then(() => {
    for (const wake of waiters) wake();
  });
  const waitForLog = (msg: string, timeoutMs = 60_000): Promise<LogLine> =>
    new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no log line "${msg}" in time:\n${stderr}`)), timeoutMs);
      const check = () => {
        const found = lines.find((line) => line.msg === msg);
        if (!found && child.exitCode === null && child.signalCode === null) return;
        clearTimeout(timer);
        waiters.delete(check);
        if (found) done(found);
        else fail(new Error(`crondeck ended before "${msg}":\n${stderr}`));
      };
      waiters.add(check);
      check();
    });
  return { child, exited, waitForLog };
}
