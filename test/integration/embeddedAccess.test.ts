import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDatabase } from '../../src/store/embedded';

/** Another local account: only root can play one, so the refusal is tested when running as root. */
const canActAsAnotherUser = process.getuid?.() === 0;
const NOBODY = 65534;

/**
 * Where `pool` connects, as another user would try it: `psql -h <dir>` for a socket directory, a
 * TCP connect for a host. Resolves to the connect's outcome: "connected" or the error code.
 */
function connectAsNobody(pool: { options: { host?: string; port?: number } }): Promise<string> {
  const { host = '', port = 0 } = pool.options;
  const target = host.startsWith('/') ? { path: `${host}/.s.PGSQL.${port}` } : { host, port };
  const script = `
    const socket = require('node:net').connect(${JSON.stringify(target)});
    socket.on('connect', () => { process.stdout.write('connected'); socket.destroy(); });
    socket.on('error', (error) => process.stdout.write(error.code || error.message));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { uid: NOBODY, gid: NOBODY, cwd: '/' });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}

describe('the embedded database is reachable by this user only', () => {
  it('serves an in-memory database on a socket in a private directory, and still answers', async () => {
    // The suite's migrated snapshot when there is one: a fresh in-memory database takes seconds.
    const snapshot = process.env.CRONDECK_TEST_SNAPSHOT;
    const db = await startEmbeddedDatabase(
      snapshot ? { loadDataDir: new Blob([readFileSync(snapshot)]) } : {},
    );
    try {
      const { host } = db.pool.options as { host: string };
      expect(host.startsWith('/')).toBe(true);
      expect(statSync(host).mode & 0o777).toBe(0o700);
      expect(statSync(host).uid).toBe(process.getuid?.());
      expect((await db.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      if (canActAsAnotherUser) expect(await connectAsNobody(db.pool)).toBe('EACCES');
    } finally {
      await db.close();
    }
    expect(() => statSync((db.pool.options as { host: string }).host)).toThrow();
  }, 120_000);

  it('keeps the socket of a data directory private even when the data directory is not', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'crondeck-access-'));
    // What `mkdir data` gives with the usual umask: readable and enterable by everyone.
    chmodSync(dataDir, 0o755);
    try {
      const db = await startEmbeddedDatabase({ dataDir });
      try {
        const { host } = db.pool.options as { host: string };
        expect(host.startsWith(dataDir)).toBe(true);
        expect(statSync(host).mode & 0o777).toBe(0o700);
        expect((await db.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
        if (canActAsAnotherUser) expect(await connectAsNobody(db.pool)).toBe('EACCES');
      } finally {
        await db.close();
      }
      // A restart finds its own directory (and no stale socket in the way).
      const again = await startEmbeddedDatabase({ dataDir });
      await again.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
