import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createLogger } from '../../src/logging/logger';
import { connectToServer, type Database } from '../../src/store/database';
import { startEmbeddedDatabase } from '../../src/store/embedded';
import { migrate } from '../../src/store/migrate';
import type { Migration } from '../../src/store/migrations';

/** True when the suite runs against a Postgres server (CI sets DATABASE_URL) rather than PGlite. */
export const onPostgresServer = Boolean(process.env.DATABASE_URL);

/**
 * A fresh, migrated database of its own for one test file: a new database on the server when
 * DATABASE_URL is set (dropped on close), else a PGlite copied from the global snapshot. With
 * `migrations`, only those are applied (on PGlite to a new data directory: the snapshot has all).
 */
export async function createTestDatabase(migrations?: readonly Migration[]): Promise<Database> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const snapshot = migrations ? undefined : process.env.CRONDECK_TEST_SNAPSHOT;
    const loadDataDir = snapshot ? new Blob([readFileSync(snapshot)]) : undefined;
    const db = await startEmbeddedDatabase({ loadDataDir });
    if (!loadDataDir) await migrate(db.pool, createLogger({ level: 'error' }), migrations);
    return db;
  }
  const name = `crondeck_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(serverUrl, (admin) => admin.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = connectToServer(url.toString(), 5);
  await migrate(db.pool, createLogger({ level: 'error' }), migrations);
  return {
    ...db,
    async close() {
      await db.close();
      await withAdmin(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

async function withAdmin<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
