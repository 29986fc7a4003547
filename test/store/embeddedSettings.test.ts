import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDatabase } from '../../src/store/embedded';
import { EMBEDDED_POSTGRES_SETTINGS, embeddedStartParams } from '../../src/store/embeddedSettings';
import { initialiseDataDirApart } from '../../src/store/initialiseDataDir';

/** The embedded database's memory settings are those PostgreSQL runs with, on disk and in memory. */
describe('embedded database settings', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'crondeck-settings-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const settingsOf = async (db: Awaited<ReturnType<typeof startEmbeddedDatabase>>) => {
    const names = Object.keys(EMBEDDED_POSTGRES_SETTINGS);
    const shown: Record<string, string> = {};
    for (const name of names) {
      const { rows } = await db.pool.query<Record<string, string>>(`SHOW ${name}`);
      shown[name] = Object.values(rows[0]!)[0]!;
    }
    return shown;
  };

  it('applies them to a fresh data directory, initialised by a process of its own', async () => {
    const db = await startEmbeddedDatabase({ dataDir });
    try {
      expect(await settingsOf(db)).toEqual(EMBEDDED_POSTGRES_SETTINGS);
      expect(EMBEDDED_POSTGRES_SETTINGS.shared_buffers).toBe('8MB');
      const { rows } = await db.pool.query<{ n: number }>('SELECT 1 + 1 AS n');
      expect(rows).toEqual([{ n: 2 }]);
    } finally {
      await db.close();
    }
  }, 90_000);

  it('applies them to an in-memory database', async () => {
    const db = await startEmbeddedDatabase();
    try {
      expect(await settingsOf(db)).toEqual(EMBEDDED_POSTGRES_SETTINGS);
    } finally {
      await db.close();
    }
  }, 90_000);
});

describe('initialiseDataDirApart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'crondeck-init-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates a data directory once, and leaves an existing one alone', async () => {
    await initialiseDataDirApart(dataDir, embeddedStartParams());
    const created = statSync(join(dataDir, 'PG_VERSION')).mtimeMs;
    await initialiseDataDirApart(dataDir, embeddedStartParams());
    expect(statSync(join(dataDir, 'PG_VERSION')).mtimeMs).toBe(created);
  }, 90_000);

  it('says which directory it could not initialise', async () => {
    const file = join(dataDir, 'PG_VERSION');
    await expect(initialiseDataDirApart(join(file, 'inside-a-file'), embeddedStartParams())).rejects.toThrow(
      /initialising the embedded database in .*inside-a-file failed/,
    );
  }, 90_000);
});
