import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import { databaseSizeBytes } from '../store/scheduler';

/** How old a database size `/health` and `/metrics` may show. */
const DATABASE_SIZE_MAX_AGE_MS = 10_000;

/**
 * The database's size for `/health` and `/metrics`, read at most once per `maxAgeMs`:
 * `pg_database_size` walks the data directory (about 1 ms), and probes and scrapes come every few
 * seconds from every monitor, while the size moves slowly. Callers that ask while a read is under
 * way share it; a failed read is not kept, so the next caller asks the database again.
 */
export function cachedDatabaseSize(
  pool: Pool,
  clock: Clock,
  maxAgeMs = DATABASE_SIZE_MAX_AGE_MS,
): () => Promise<number> {
  let last: { bytes: number; readAt: number } | null = null;
  let reading: Promise<number> | null = null;
  return () => {
    const now = clock.now().getTime();
    if (last && now - last.readAt < maxAgeMs) return Promise.resolve(last.bytes);
    reading ??= databaseSizeBytes(pool)
      .then((bytes) => {
        last = { bytes, readAt: now };
        return bytes;
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  };
}
