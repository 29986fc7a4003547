import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sidecarScript } from '../../src/controller/desired/sidecarScript';
import { shellQuote } from '../../src/runner/shellQuote';
import { SUPERVISE_FILES } from '../../src/runner/superviseFiles';

/** Polls for a file: the script is driven by files, so the test waits for them, without timing asserts. */
/**
 * The file's content once it is whole: the script's `echo … > file` creates the file before it
 * writes the line, so a file that exists may still be empty (the runner polls for a pid the same way).
 */
async function waitForFile(path: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const content = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (content.endsWith('\n')) return content;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${path} never appeared`);
}

/** Processes of a group that are not zombies (PID 1 here is slow to reap orphans). */
function liveProcessesInGroup(pgid: number): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(group) === pgid && state !== 'Z' ? [stat] : [];
      } catch {
        return [];
      }
    });
}

/** Plays the runner's side of one attempt: command file, then the start marker. */
function startAttempt(dir: string, attempt: number, command: string): void {
  writeFileSync(join(dir, `${SUPERVISE_FILES.command(attempt)}.tmp`), command);
  renameSync(
    join(dir, `${SUPERVISE_FILES.command(attempt)}.tmp`),
    join(dir, SUPERVISE_FILES.command(attempt)),
  );
  writeFileSync(join(dir, SUPERVISE_FILES.start(attempt)), '');
}

const children: ChildProcess[] = [];
afterEach(() => {
  // A failed expectation must not leave a polling shell behind (Jest would wait for it).
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function runScript(dir: string): ChildProcess {
  const child = spawn('/bin/sh', ['-c', sidecarScript(dir)], { stdio: 'ignore' });
  children.push(child);
  return child;
}

describe('the job container script of the sidecar layout', () => {
  it('runs each attempt the runner starts, keeps its output and exit code, and exits with the done code', async () => {
    const dir = mkdtempSync(join(tmpdir(), "crondeck sidecar 'quoted' "));
    const child = runScript(dir);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    expect(Number(await waitForFile(join(dir, SUPERVISE_FILES.ready)))).toBe(child.pid);

    startAttempt(dir, 0, 'echo "out $0"; echo err >&2; exit 3');
    expect(await waitForFile(join(dir, SUPERVISE_FILES.exit(0)))).toBe('3\n');
    expect(readFileSync(join(dir, SUPERVISE_FILES.stdout(0)), 'utf8')).toBe('out sh\n');
    expect(readFileSync(join(dir, SUPERVISE_FILES.stderr(0)), 'utf8')).toBe('err\n');

    // A timed-out attempt: the runner signals its process group (setsid exists here), which reaches
    // the grandchildren too.
    startAttempt(dir, 1, 'sleep 60 & sleep 61; echo never');
    const pid = Number(await waitForFile(join(dir, SUPERVISE_FILES.pid(1))));
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(-pid, 'SIGTERM');
    expect(await waitForFile(join(dir, SUPERVISE_FILES.exit(1)))).toBe('143\n');
    expect(readFileSync(join(dir, SUPERVISE_FILES.stdout(1)), 'utf8')).toBe('');
    expect(liveProcessesInGroup(pid)).toEqual([]);

    startAttempt(dir, 2, 'exit 0');
    expect(await waitForFile(join(dir, SUPERVISE_FILES.exit(2)))).toBe('0\n');

    writeFileSync(join(dir, SUPERVISE_FILES.done), '7\n');
    expect(await exited).toBe(7);
  });

  it('exits 1 when the done file does not hold a number', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crondeck-sidecar-'));
    writeFileSync(join(dir, SUPERVISE_FILES.done), 'oops');
    const child = runScript(dir);
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(1);
  });

  it('quotes its directory for the shell', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(sidecarScript()).toContain("d='/crondeck'");
    expect(() => sidecarScript('/x', 0)).toThrow();
  });
});
