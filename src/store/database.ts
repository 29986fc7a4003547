import { Pool, type PoolClient, type QueryResultRow } from 'pg';

/**
 * Anything that runs SQL: the pool itself, or one client inside a transaction. Store functions
 * take a `Queryable` so the same function works standalone or as part of a larger transaction.
 */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

export interface Database {
  pool: Pool;
  /** Where the data lives, for logs: a redacted URL or the embedded data directory. */
  description: string;
  close(): Promise<void>;
}

/**
 * Runs `work` inside BEGIN/COMMIT on one client. With the embedded database the pool has a single
 * connection, so `work` must use only the client it is given, never the pool.
 */
export async function withTransaction<T>(pool: Pool, work: (tx: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Connects to a Postgres server by URL. */
export function connectToServer(databaseUrl: string, maxConnections = 10): Database {
  const pool = new Pool({ connectionString: databaseUrl, max: maxConnections });
  // An idle client that loses its connection (server restart) emits 'error' on the pool; without a
  // listener that would crash the process. The pool drops the client and opens a new one later.
  pool.on('error', () => undefined);
  return {
    pool,
    description: redactUrl(databaseUrl),
    close: () => pool.end(),
  };
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres';
  }
}

/** Postgres raises 23505 for a unique violation; callers turn it into a conflict of their own words. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}
