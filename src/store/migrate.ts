import type { Pool } from 'pg';
import type { Logger } from '../logging/logger';
import { withTransaction } from './database';
import { MIGRATIONS, type Migration } from './migrations';

/** Arbitrary, fixed key: every replica takes the same lock, so only one migrates at a time. */
const MIGRATION_LOCK_KEY = 7433_0001;

/**
 * Applies the migrations that the database has not seen yet, all in one transaction (a failed one
 * leaves nothing behind), under a
 * transaction-level advisory lock so that replicas starting together do not race.
 */
export async function migrate(
  pool: Pool,
  logger: Logger,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  return withTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((r) => r.version));
    const newlyApplied: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await tx.query(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      newlyApplied.push(migration.version);
      logger.info('applied migration', { version: migration.version, name: migration.name });
    }
    return newlyApplied;
  });
}
