import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/** `crondeck …args` as a real process, from the sources (see registerTypeScript.js). */
function crondeck(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['-r', join(ROOT, 'test/support/registerTypeScript.js'), join(ROOT, 'src/cli.ts'), ...args],
      {
        cwd: ROOT,
        // Nothing that a command could start from: help must come before any of it is read.
        env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '' },
        timeout: 20_000,
      },
      (error, stdout, stderr) =>
        done({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

describe('crondeck <command> --help', () => {
  it.each([
    ['serve', /^usage: crondeck serve \[--config jobs\.yaml\]/, /--insecure/],
    ['controller', /^usage: crondeck controller\n/, /CRONDECK_REPORT_URL/],
    ['run', /^usage: crondeck run \[--supervise\]\n/, /--supervise/],
    ['manifests', /^usage: crondeck manifests \[--root DIR \| --out DIR\]\n/, /--out DIR/],
  ])(
    '%s --help and -h print that command’s usage and exit 0',
    async (command, first, mentions) => {
      for (const flag of ['--help', '-h']) {
        const { code, stdout, stderr } = await crondeck([command, flag]);
        expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
        expect(stdout).toMatch(first);
        expect(stdout).toMatch(mentions);
      }
    },
    60_000,
  );

  it('crondeck --help still prints every command', async () => {
    const { code, stdout } = await crondeck(['--help']);
    expect(code).toBe(0);
    for (const command of ['serve', 'controller', 'run', 'manifests']) {
      expect(stdout).toContain(`crondeck ${command}`);
    }
  }, 20_000);

  it('an unknown option is still refused, with the command’s usage', async () => {
    const { code, stderr } = await crondeck(['manifests', '--nope']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/nope/);
    expect(stderr).toContain('usage: crondeck manifests');
  }, 20_000);
});
