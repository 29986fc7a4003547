import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessGroup } from '../../src/runner/processGroup';
import { runCommand } from '../../src/runner/runCommand';
import { endsWithin, isAlive } from '../support/processes';

describe('runCommand', () => {
  it('captures stdout and stderr separately and reports success', async () => {
    const result = await runCommand({ command: 'echo out; echo err >&2', timeoutSeconds: 0 });
    expect(result).toMatchObject({ status: 'success', exitCode: 0, stdout: 'out\n', stderr: 'err\n' });
    expect(result.finishedAt.getTime()).toBeGreaterThanOrEqual(result.startedAt.getTime());
  });

  it('reports the exit code of a failing command', async () => {
    const result = await runCommand({ command: 'echo bad >&2; exit 3', timeoutSeconds: 0 });
    expect(result).toMatchObject({ status: 'failed', exitCode: 3, stderr: 'bad\n' });
  });

  it('reports 127 for a command that does not exist', async () => {
    const result = await runCommand({ command: 'no-such-command-anywhere', timeoutSeconds: 0 });
    expect(result.status).toBe('failed');
    expect(result.exitCode).toBe(127);
  });

  it('reports 128 + the signal number when the command is killed by a signal', async () => {
    const result = await runCommand({ command: 'kill -9 $$', timeoutSeconds: 0 });
    expect(result).toMatchObject({ status: 'failed', exitCode: 137 });
  });

  it('stops a command at its timeout, with every process it started', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crondeck-run-'));
    const pidFile = join(dir, 'grandchild.pid');
    const result = await runCommand({
      command: `sh -c 'sleep 30 & echo $! > ${pidFile}; wait' ; echo never`,
      timeoutSeconds: 1,
    });
    expect(result.status).toBe('timeout');
    expect(result.exitCode).toBe(143);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('timed out after 1s');
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(await endsWithin(grandchild, 2000)).toBe(true);
  });

  it('kills a command that ignores TERM after the grace period', async () => {
    const result = await runCommand({
      command: "trap '' TERM; while :; do sleep 0.1; done",
      timeoutSeconds: 1,
      killGraceSeconds: 0.5,
    });
    expect(result).toMatchObject({ status: 'timeout', exitCode: 137 });
  });

  it('does not leave background processes behind when the shell exits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crondeck-run-'));
    const pidFile = join(dir, 'bg.pid');
    const result = await runCommand({
      command: `sleep 30 > /dev/null 2>&1 & echo $! > ${pidFile}`,
      timeoutSeconds: 0,
    });
    expect(result.status).toBe('success');
    const background = Number(readFileSync(pidFile, 'utf8'));
    expect(await endsWithin(background, 2000)).toBe(true);
  });

  describe('with a process that leaves the process group (setsid) and holds the output', () => {
    const escaped: number[] = [];
    afterEach(() => {
      for (const pid of escaped.splice(0)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    });
    const escapedPid = (pidFile: string) => {
      const pid = Number(readFileSync(pidFile, 'utf8'));
      escaped.push(pid);
      return pid;
    };

    it('ends a run whose shell exits, with the shell exit code, without waiting for it', async () => {
      const pidFile = join(mkdtempSync(join(tmpdir(), 'crondeck-run-')), 'escaped.pid');
      const result = await runCommand({
        command: `echo before; setsid sh -c 'echo $$ > ${pidFile}; exec sleep 30' & sleep 0.2; exit 4`,
        timeoutSeconds: 0,
      });
      expect(result).toMatchObject({ status: 'failed', exitCode: 4, stdout: 'before\n' });
      expect(result.stderr).toContain("a process that left the run's process group still holds it");
      // The run did not wait for the escaped process: it is still there.
      expect(isAlive(escapedPid(pidFile))).toBe(true);
    });

    it('ends a run at its timeout plus the kill grace, with the exit code of the kill', async () => {
      const pidFile = join(mkdtempSync(join(tmpdir(), 'crondeck-run-')), 'escaped.pid');
      const result = await runCommand({
        command: `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 30' & trap '' TERM; while :; do sleep 0.1; done`,
        timeoutSeconds: 1,
        killGraceSeconds: 0.5,
      });
      expect(result).toMatchObject({ status: 'timeout', exitCode: 137 });
      expect(result.stderr).toContain('timed out after 1s');
      expect(isAlive(escapedPid(pidFile))).toBe(true);
    });

    it('records a shell that exits before its timeout as a success, not as a timeout', async () => {
      const pidFile = join(mkdtempSync(join(tmpdir(), 'crondeck-run-')), 'escaped.pid');
      const result = await runCommand({
        // The pause lets the background process leave the group before the shell's exit ends it.
        command: `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 30' & sleep 0.2`,
        timeoutSeconds: 1,
        drainMs: 1500,
      });
      expect(result).toMatchObject({ status: 'success', exitCode: 0 });
      escapedPid(pidFile);
    });
  });

  it('reports the process group it runs in as soon as it has spawned', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'crondeck-run-')), 'shell.pid');
    let reported: ProcessGroup | null = null;
    const result = await runCommand({
      command: `echo $$ > ${pidFile}; sleep 0.2`,
      timeoutSeconds: 0,
      onSpawn: (group) => (reported = group),
    });
    expect(result.status).toBe('success');
    const shell = Number(readFileSync(pidFile, 'utf8'));
    expect(reported).toEqual({
      pgid: shell,
      leaderStartTicks: expect.stringMatching(/^[0-9]+$/),
      bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
    });
  });

  it('keeps the tail of output of several MiB within the limit', async () => {
    // 4 MiB of numbered lines on stdout, 3 MiB on stderr.
    const result = await runCommand({
      command: "seq 1 600000 | awk '{ printf \"%06d\\n\", $1 }'; head -c 3145728 /dev/zero | tr '\\0' e >&2",
      timeoutSeconds: 0,
      outputLimitBytes: 1024 * 1024,
    });
    expect(result.status).toBe('success');
    expect(result.stdout.endsWith('599999\n600000\n')).toBe(true);
    expect(result.stdout).toMatch(/^\[\.\.\. \d+ bytes of earlier output dropped \.\.\.\]\n/);
    expect(result.stdout.length).toBeLessThan(1024 * 1024 + 100);
    expect(result.stderr.endsWith('eeee')).toBe(true);
    expect(result.stderr.length).toBeLessThan(1024 * 1024 + 100);
  });

  it('stops the command when aborted, as a failure', async () => {
    const abort = new AbortController();
    const running = runCommand({ command: 'sleep 30', timeoutSeconds: 0, signal: abort.signal });
    setTimeout(() => abort.abort(), 200);
    expect(await running).toMatchObject({ status: 'failed', exitCode: 143 });
  });

  it('passes the environment it is given', async () => {
    const result = await runCommand({
      command: 'echo "$GREETING"',
      timeoutSeconds: 0,
      env: { GREETING: 'hej', PATH: process.env.PATH },
    });
    expect(result.stdout).toBe('hej\n');
  });
});
