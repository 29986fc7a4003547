/**
 * A command the kernel refuses to start (an argument past MAX_ARG_STRLEN, no file descriptors left
 * for its pipes, a working directory that is gone) ends as a failed run saying why: never a thrown
 * error, an unhandled 'error' event that ends the process, or a promise that never settles.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { runCommand } from '../../src/runner/runCommand';

const ROOT = resolve(__dirname, '../..');

/** One argument of exec may hold at most 128 KiB (MAX_ARG_STRLEN, with its NUL). */
const PAST_MAX_ARG_STRLEN = 'é'.repeat(70_000);

describe('a command that cannot be started', () => {
  it('fails with the reason when its argument is longer than the kernel takes (E2BIG)', async () => {
    const result = await runCommand({ command: `echo ${PAST_MAX_ARG_STRLEN}`, timeoutSeconds: 0 });
    expect(result).toMatchObject({ status: 'failed', exitCode: 127, stdout: '' });
    expect(result.stderr).toBe('[crondeck] could not start the command: spawn E2BIG\n');
    expect(result.reason).toEqual({
      code: 'StartError',
      message: expect.stringContaining('the command could not be started: spawn E2BIG (') as string,
    });
  });

  it('fails with the reason when its working directory does not exist (ENOENT)', async () => {
    const result = await runCommand({ command: 'echo never', timeoutSeconds: 0, cwd: '/no/such/dir' });
    expect(result).toMatchObject({ status: 'failed', exitCode: 127, stdout: '' });
    expect(result.reason).toEqual({
      code: 'StartError',
      message: expect.stringContaining('ENOENT') as string,
    });
  });

  it('fails with the reason when the process has no file descriptor left for the pipes (EMFILE), and the process lives on', async () => {
    // In a process of its own, which uses up its descriptors, then runs a command, then frees them
    // and runs another: what a flood of connections does to the service.
    const script = `
      const { openSync, closeSync } = require('node:fs');
      const { runCommand } = require(${JSON.stringify(resolve(ROOT, 'src/runner/runCommand.ts'))});
      const held = [];
      try { for (;;) held.push(openSync('/dev/null', 'r')); } catch (error) {
        if (error.code !== 'EMFILE') throw error;
      }
      runCommand({ command: 'echo starved', timeoutSeconds: 0 }).then(async (starved) => {
        for (const fd of held) closeSync(fd);
        const after = await runCommand({ command: 'echo fed', timeoutSeconds: 0 });
        process.stdout.write(JSON.stringify({ starved, after }));
      });`;
    const child = spawn(
      'sh',
      [
        '-c',
        'ulimit -n 128 && exec "$0" -r "$1" -e "$2"',
        process.execPath,
        resolve(ROOT, 'test/support/registerTypeScript.js'),
        script,
      ],
      { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', (exitCode) => done(exitCode)));

    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const { starved, after } = JSON.parse(stdout) as {
      starved: {
        status: string;
        exitCode: number;
        stderr: string;
        reason: { code: string; message: string };
      };
      after: { status: string; stdout: string };
    };
    expect(starved).toMatchObject({ status: 'failed', exitCode: 127 });
    expect(starved.stderr).toContain('[crondeck] could not start the command: spawn /bin/sh EMFILE');
    expect(starved.reason).toEqual({
      code: 'StartError',
      message: expect.stringContaining('EMFILE') as string,
    });
    expect(after).toMatchObject({ status: 'success', stdout: 'fed\n' });
  });
});
