import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { CRONDECK_FROM_SOURCES } from '../support/kube/podProcesses';

const ROOT = resolve(__dirname, '../..');
const BUILT_CLI = resolve(ROOT, 'dist/cli.js');

/**
 * The argv of the real CLI: the build in dist/ with CRONDECK_E2E_CLI=dist (`npm run build` first),
 * else this checkout's sources (swc on the fly, as the tests run them).
 */
export function crondeckArgv(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.CRONDECK_E2E_CLI !== 'dist') return CRONDECK_FROM_SOURCES;
  if (!existsSync(BUILT_CLI)) throw new Error('CRONDECK_E2E_CLI=dist needs `npm run build` first');
  return [process.execPath, BUILT_CLI];
}

/** One `crondeck …` child process with the tail of its output kept for a failure's message. */
export class CrondeckProcess {
  private output = '';
  private readonly exited: Promise<number>;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((done) => child.on('exit', (code, signal) => done(code ?? (signal ? 143 : 1))));
  }

  static start(name: string, args: string[], env: NodeJS.ProcessEnv): CrondeckProcess {
    const [program, ...rest] = [...crondeckArgv(), ...args];
    const child = spawn(program!, rest, {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new CrondeckProcess(name, child);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines it wrote, to explain a failure. */
  tail(lines = 30): string {
    return `--- ${this.name} ---\n${this.output.split('\n').slice(-lines).join('\n')}`;
  }

  /** SIGTERM (a graceful stop: the controller releases its Lease), SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<number> {
    if (this.running) this.child.kill('SIGTERM');
    const killer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(killer);
    }
  }
}

/** A port free on this machine now, for a server whose URL must be known before it starts. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, host, done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}
