import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDatabase } from '../../src/store/embedded';
import { createMemoryLogger } from '../support/memoryLogger';

/** Another local account: only root can play one, as the suite does on CI. */
const canActAsAnotherUser = process.getuid?.() === 0;

const SECRET = 'https://hooks.example.com/services/T000/B000/secret-token';

/** Every file and directory under `dir`, with its permission bits (symlinks left out). */
function modesUnder(dir: string): Map<string, number> {
  const modes = new Map<string, number>();
  for (const entry of readdirSync(dir, { recursive: true }) as string[]) {
    const stat = lstatSync(join(dir, entry));
    if (!stat.isSymbolicLink()) modes.set(entry, stat.mode & 0o777);
  }
  return modes;
}

/** Entries that another account could read, write or enter. */
function openToOthers(dir: string): string[] {
  return [...modesUnder(dir)]
    .filter(([, mode]) => (mode & 0o077) !== 0)
    .map(([path, mode]) => `${path} ${mode.toString(8)}`);
}

/** Runs `sh -c script` as `nobody`; answers whether it succeeded. */
function asNobody(script: string): boolean {
  return spawnSync('runuser', ['-u', 'nobody', '--', 'sh', '-c', script], { stdio: 'ignore' }).status === 0;
}

describe('the embedded database’s files are the service’s alone', () => {
  let parent: string;
  let dataDir: string;
  let umask: number;
  beforeEach(() => {
    // A parent that everyone may enter, as a home directory or /srv is: only the data directory's
    // own modes can keep others out.
    parent = mkdtempSync(join(tmpdir(), 'crondeck-files-'));
    chmodSync(parent, 0o755);
    dataDir = join(parent, 'data');
    // The loosest umask there is: the service's modes must not depend on it.
    umask = process.umask(0o000);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(parent, { recursive: true, force: true });
  });

  it('creates the directory 0700 and every file 0600, the WAL and catalogs included', async () => {
    const db = await startEmbeddedDatabase({ dataDir });
    try {
      await db.pool.query('CREATE TABLE hooks (url text)');
      await db.pool.query('INSERT INTO hooks VALUES ($1)', [SECRET]);
      await db.pool.query('CHECKPOINT');
      expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
      expect(openToOthers(dataDir)).toEqual([]);

      const walFile = join(
        dataDir,
        'pg_wal',
        readdirSync(join(dataDir, 'pg_wal')).find((name) => /^[0-9A-F]{24}$/.test(name))!,
      );
      // The secret is there to be read, by the service's own user.
      expect(readFileSync(walFile).includes(Buffer.from(SECRET))).toBe(true);
      if (canActAsAnotherUser) {
        expect(asNobody('true')).toBe(true);
        expect(asNobody(`cat '${walFile}' > /dev/null`)).toBe(false);
        expect(
          asNobody(`echo 'default_transaction_read_only = on' >> '${dataDir}/postgresql.auto.conf'`),
        ).toBe(false);
      }
    } finally {
      await db.close();
    }
    // Whatever PGlite wrote while it ran, and on closing.
    expect(openToOthers(dataDir)).toEqual([]);
    expect(readFileSync(join(dataDir, 'postgresql.auto.conf'), 'utf8')).not.toContain('read_only');
  }, 120_000);

  it('tightens a data directory found open to others, and says so', async () => {
    const first = await startEmbeddedDatabase({ dataDir });
    await first.close();
    // As an earlier version left it: everything readable, the directory enterable by everyone.
    spawnSync('chmod', ['-R', 'a+rwX', dataDir]);
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o777);

    const logger = createMemoryLogger();
    const db = await startEmbeddedDatabase({ dataDir, logger });
    try {
      expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
      expect(openToOthers(dataDir)).toEqual([]);
      expect(logger.lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          msg: 'the data directory was open to other users; made it private',
          mode: '777',
        }),
      );
      if (canActAsAnotherUser) {
        expect(asNobody(`cat '${dataDir}/global/pg_control' > /dev/null`)).toBe(false);
      }
      expect((await db.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('refuses a data directory that belongs to another user, saying how to fix it', async () => {
    if (!canActAsAnotherUser) return;
    spawnSync('mkdir', [dataDir]);
    spawnSync('chown', ['nobody', dataDir]);
    await expect(startEmbeddedDatabase({ dataDir })).rejects.toThrow(
      `the data directory ${dataDir} belongs to uid 65534, and this service runs as uid 0: run it as that user, or give it its own directory (chown -R 0 ${dataDir})`,
    );
  });
});
