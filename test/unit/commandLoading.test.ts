import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/** Printed at exit by the preload below: the packages the process had loaded by then. */
const REPORT_LOADED = `process.on('exit', () => {
  const packages = new Set();
  for (const file of Object.keys(require.cache)) {
    const found = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file);
    if (found) packages.add(found[1]);
  }
  process.stdout.write('\\nloaded: ' + JSON.stringify([...packages]) + '\\n');
});`;

/** The packages `crondeck …args` loads, as a real process from the sources (registerTypeScript.js). */
function packagesLoadedBy(args: string[]): Promise<string[]> {
  return packagesLoadedByScript(
    `process.argv.splice(1, 0, 'crondeck'); require(${JSON.stringify(join(ROOT, 'src/cli.ts'))});`,
    args,
  );
}

/** The packages a script loads, run as a real process from the sources, until it exits. */
function packagesLoadedByScript(script: string, args: string[] = []): Promise<string[]> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      ['-r', join(ROOT, 'test/support/registerTypeScript.js'), '-e', `${REPORT_LOADED}; ${script}`, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '' }, timeout: 20_000 },
      (error, stdout) => {
        const line = /\nloaded: (.*)\n/.exec(stdout);
        if (error || !line) fail(error ?? new Error(`no report in ${stdout}`));
        else done(JSON.parse(line[1]!) as string[]);
      },
    );
  });
}

/**
 * What src/cli.ts loads before it knows the command is what every command pays for, the
 * controller included. The service's HTTP stack is loaded by `serve`, the embedded database by
 * `serve` without a server URL, nodemailer by the first SMTP sender, yaml by the first YAML file or
 * manifest rendered.
 */
describe('what every command loads', () => {
  it('leaves out the service, the embedded database, nodemailer and yaml', async () => {
    const loaded = await packagesLoadedBy(['controller', '--help']);
    // The report works: the CLI's own dependencies are seen.
    expect(loaded).toContain('zod');
    for (const name of ['express', '@electric-sql/pglite', 'nodemailer', 'yaml']) {
      expect(loaded).not.toContain(name);
    }
  }, 30_000);
});

describe('what a service on a PostgreSQL server loads', () => {
  it('leaves out the embedded database', async () => {
    // The pools connect on their first query: opening the database asks nothing of the server.
    const loaded = await packagesLoadedByScript(
      `require(${JSON.stringify(join(ROOT, 'src/store/open.ts'))})
        .openDatabase({ databaseUrl: 'postgres://127.0.0.1:1/none', dataDir: '/nonexistent' })
        .then((db) => Promise.all([db.pool.end(), db.genericPlanPool.end()]));`,
    );
    expect(loaded).toContain('pg');
    expect(loaded).not.toContain('@electric-sql/pglite');
  }, 30_000);
});
