import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sidecarScript } from '../../src/controller/desired/sidecarScript';
import { RUNNER_ENV } from '../../src/runner/runnerEnvironment';
import { SUPERVISE_FILES } from '../../src/runner/superviseFiles';
/** The line test/support/announceSignalHandlers.js writes. */
const SIGTERM_HANDLED = 'crondeck-test: SIGTERM handled\n';

/**
 * `crondeck run --supervise` and the job container's script as the two real processes of a pod of
 * the sidecar layout: they share only a directory (and the process namespace, as the pod's
 * `shareProcessNamespace` makes them), and the runner reports to a service stand-in on loopback.
 */

const ROOT = resolve(__dirname, '../..');
jest.setTimeout(60_000);

interface Report {
  podUid: string;
  attempt: number;
  final: boolean;
  status: string;
  exitCode: number;
  stdout: string;
  stderr: string;
}

let service: { server: Server; url: string; reports: Report[] };
beforeAll(async () => {
  const reports: Report[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.headers.authorization === 'Bearer job-token') {
        reports.push(JSON.parse(Buffer.concat(chunks).toString()) as Report);
      }
      res.statusCode = req.headers.authorization === 'Bearer job-token' ? 201 : 403;
      res.end('{}');
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  service = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, reports };
});
afterAll(() => new Promise<void>((closed) => service.server.close(() => closed())));
beforeEach(() => service.reports.splice(0));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function exited(child: ChildProcess): Promise<number> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => child.on('exit', (code, signal) => done(code ?? (signal ? 128 + 9 : -1))));
}

/** The sidecar: this checkout's CLI, from its sources, as the stand-in kubelet runs it. */
function startRunner(
  dir: string,
  job: { command: string; timeout?: number; retries?: number; retryDelay?: number },
): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      '-r',
      join(ROOT, 'test/support/registerTypeScript.js'),
      '-r',
      join(ROOT, 'test/support/announceSignalHandlers.js'),
      join(ROOT, 'src/cli.ts'),
      'run',
      '--supervise',
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        PATH: process.env.PATH,
        [RUNNER_ENV.reportUrl]: service.url,
        [RUNNER_ENV.jobId]: '7',
        [RUNNER_ENV.command]: job.command,
        [RUNNER_ENV.timeout]: String(job.timeout ?? 0),
        [RUNNER_ENV.retryMaxAttempts]: String(job.retries ?? 0),
        [RUNNER_ENV.retryBaseDelay]: String(job.retryDelay ?? 0),
        [RUNNER_ENV.reportToken]: 'job-token',
        [RUNNER_ENV.podUid]: 'pod-uid-1',
        [RUNNER_ENV.superviseDir]: dir,
      },
    },
  );
  children.push(child);
  return child;
}

/** The job container: the user's image runs the generated script with /bin/sh and nothing else. */
function startJobContainer(dir: string, options: { shell?: string; path?: string } = {}): ChildProcess {
  const child = spawn(options.shell ?? '/bin/sh', ['-c', sidecarScript(dir)], {
    cwd: dir,
    stdio: 'ignore',
    env: { PATH: options.path ?? process.env.PATH },
  });
  children.push(child);
  return child;
}

/** A PATH with only what an image without `setsid` has: sh, sleep, cat, mv. */
function pathWithoutSetsid(): string {
  const bin = mkdtempSync(join(tmpdir(), 'crondeck-bin-'));
  for (const tool of ['sh', 'sleep', 'cat', 'mv']) symlinkSync(`/bin/${tool}`, join(bin, tool));
  return bin;
}

function sharedDir(): string {
  return mkdtempSync(join(tmpdir(), 'crondeck-supervise-'));
}

/** Processes whose command line mentions the marker (not zombies). */
function processesMentioning(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const state = readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (state.slice(state.lastIndexOf(')') + 2).startsWith('Z')) return false;
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Resolves once the runner has its SIGTERM listener (announced by announceSignalHandlers.js). */
function handlesSigterm(child: ChildProcess): Promise<void> {
  return new Promise((handled, failed) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (!seen.includes(SIGTERM_HANDLED)) return;
      child.stderr!.off('data', onData);
      handled();
    };
    child.stderr!.on('data', onData);
    child.once('exit', () => failed(new Error(`the runner exited before handling SIGTERM: ${seen}`)));
  });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (condition()) return;
    await new Promise((tick) => setTimeout(tick, 50));
  }
  throw new Error(`never happened: ${what}`);
}

describe('crondeck run --supervise', () => {
  it.each([
    ['sh', '/bin/sh'],
    ['dash', '/bin/dash'],
  ])(
    'runs the command in the job container (%s), reports it, and ends the pod with its code',
    async (_, shell) => {
      const dir = sharedDir();
      const runner = startRunner(dir, { command: 'echo "out of $0"; echo oops >&2; exit 0' });
      const job = startJobContainer(dir, { shell });

      expect(await exited(job)).toBe(0);
      expect(service.reports).toEqual([
        expect.objectContaining({
          podUid: 'pod-uid-1',
          attempt: 0,
          final: true,
          status: 'success',
          exitCode: 0,
        }),
      ]);
      expect(service.reports[0]!.stdout).toMatch(/^out of (setsid )?sh\n$/);
      expect(service.reports[0]!.stderr).toBe('oops\n');

      // A sidecar that exited would be restarted: it stays until the kubelet stops it.
      expect(runner.exitCode).toBeNull();
      runner.kill('SIGTERM');
      expect(await exited(runner)).toBe(0);
    },
  );

  it('retries a failed attempt in the job container and ends the pod with the last exit code', async () => {
    const dir = sharedDir();
    startRunner(dir, { command: 'echo "try"; exit 3', retries: 1 });
    const job = startJobContainer(dir);

    expect(await exited(job)).toBe(3);
    expect(
      service.reports.map(({ attempt, final, status, exitCode }) => ({ attempt, final, status, exitCode })),
    ).toEqual([
      { attempt: 0, final: false, status: 'failed', exitCode: 3 },
      { attempt: 1, final: true, status: 'failed', exitCode: 3 },
    ]);
    expect(readFileSync(join(dir, SUPERVISE_FILES.done), 'utf8')).toBe('3\n');
  });

  it.each([
    ['with setsid: the attempt’s process group', undefined],
    ['without setsid: the attempt’s shell and its descendants', 'no-setsid'],
  ])('at the timeout stops the attempt %s, KILL after the grace when TERM is ignored', async (_, variant) => {
    const dir = sharedDir();
    const marker = `crondeck-timeout-${Date.now()}-${variant ?? 'setsid'}`;
    startRunner(dir, {
      // A child that ignores TERM, and the shell waiting for it.
      command: `trap '' TERM; sh -c 'trap "" TERM; sleep 120; : ${marker}' & wait`,
      timeout: 1,
    });
    const job = startJobContainer(dir, variant ? { path: pathWithoutSetsid() } : {});

    expect(await exited(job)).toBe(137);
    expect(service.reports).toEqual([
      expect.objectContaining({ attempt: 0, final: true, status: 'timeout', exitCode: 137 }),
    ]);
    expect(service.reports[0]!.stderr).toContain('[crondeck] timed out after 1s');
    await until(() => processesMentioning(marker).length === 0, `the attempt's processes (${marker}) ended`);
  });

  it('keeps the tail of an output larger than the limit, saying how much was dropped', async () => {
    const dir = sharedDir();
    startRunner(dir, { command: 'head -c 1100000 /dev/zero | tr "\\0" a; echo END' });
    const job = startJobContainer(dir);

    expect(await exited(job)).toBe(0);
    const stdout = service.reports[0]!.stdout;
    expect(stdout).toMatch(/^\[\.\.\. \d+ bytes of earlier output dropped \.\.\.\]\n/);
    expect(stdout.endsWith('aaaEND\n')).toBe(true);
  });

  it('reports a failed run when it is stopped before the job container started (an image without /bin/sh)', async () => {
    const dir = sharedDir();
    const runner = startRunner(dir, { command: 'echo never' });
    await handlesSigterm(runner);
    runner.kill('SIGTERM');

    expect(await exited(runner)).toBe(0);
    expect(service.reports).toEqual([
      expect.objectContaining({ attempt: 0, final: true, status: 'failed', exitCode: -1 }),
    ]);
    expect(service.reports[0]!.stderr).toContain('stopped before the job container started');
    expect(readFileSync(join(dir, SUPERVISE_FILES.done), 'utf8')).toBe('1\n');
  });

  it('restarted between attempts, carries on from the files: an attempt that ran is reported again, never run again', async () => {
    const dir = sharedDir();
    const command = 'echo ran >> attempts; exit 3';
    const first = startRunner(dir, { command, retries: 1, retryDelay: 60 });
    const job = startJobContainer(dir);
    await until(() => service.reports.length === 1, 'the first attempt reported');
    first.kill('SIGKILL'); // the sidecar dies in the retry's wait; the kubelet restarts it
    await exited(first);
    startRunner(dir, { command, retries: 1 });

    expect(await exited(job)).toBe(3);
    expect(readFileSync(join(dir, 'attempts'), 'utf8')).toBe('ran\nran\n');
    // Attempt 0 reported by both runners: the service stores a (pod, attempt) once.
    expect(service.reports.map(({ attempt, final }) => ({ attempt, final }))).toEqual([
      { attempt: 0, final: false },
      { attempt: 0, final: false },
      { attempt: 1, final: true },
    ]);
  });

  it('restarted after the run ended, only waits to be stopped', async () => {
    const dir = sharedDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, SUPERVISE_FILES.done), '0\n');
    const runner = startRunner(dir, { command: 'echo again' });
    await handlesSigterm(runner);
    runner.kill('SIGTERM');

    expect(await exited(runner)).toBe(0);
    expect(service.reports).toEqual([]);
    expect(existsSync(join(dir, SUPERVISE_FILES.start(0)))).toBe(false);
  });
});
