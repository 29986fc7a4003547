import { Client, Pool, type PoolClient, type QueryConfig, type QueryResultRow } from 'pg';
import { databaseServer, type DatabaseServer } from './databaseServer';

/**
 * Anything that runs SQL: the pool itself, or one client inside a transaction. Store functions
 * take a `Queryable` so the same function works standalone or as part of a larger transaction.
 */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(
    text: string | QueryConfig,
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

/**
 * A statement prepared once per connection under `name`, then only bound and run: for statements
 * run many times a second (recording executions, the version reads of the lists), whose parsing
 * and planning would otherwise cost the server more than running them.
 */
export function prepared(name: string, text: string, values: unknown[]): QueryConfig {
  return { name: `crondeck_${name}`, text, values };
}

export interface Database {
  pool: Pool;
  /**
   * Connections whose prepared statements are planned once, with no regard to their values
   * (`plan_cache_mode = force_generic_plan`), for the statements whose best plan does not depend
   * on them: the label filters. Left to its own choice, PostgreSQL plans these anew on every call
   * (an `= ANY ($1)` of an array it cannot see looks dearer in a generic plan), which costs 0.15 ms
   * of a 0.4 ms count and 0.8 ms of a 3 ms filter. Everything else runs on `pool`, planned per call.
   */
  genericPlanPool: Pool;
  /**
   * Opens a connection of its own, outside the pools, for state that lives as long as a session
   * (the leader's advisory lock). Absent on the embedded database: it is one session, and serves
   * one process only.
   */
  openSession?: () => Promise<Client>;
  /**
   * The server, which the start waits for (`waitForDatabase`). Absent on the embedded database: it
   * runs in this process.
   */
  server?: DatabaseServer;
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
  // The pool listens for errors of idle clients only: a connection that dies while this one is
  // checked out (the server ended the session) fails the transaction, not the process, and the
  // broken client is not handed out again.
  let broken: Error | undefined;
  const onError = (error: Error) => (broken = error);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/** Connects to a Postgres server by URL: two pools of up to `maxConnections` each. */
export function connectToServer(databaseUrl: string, maxConnections = 10): Database {
  const pool = new Pool({ connectionString: databaseUrl, max: maxConnections });
  const genericPlanPool = new Pool({
    connectionString: databaseUrl,
    max: maxConnections,
    // A SET, not the startup option `-c`: connection poolers refuse unknown startup parameters, and
    // an `options` in the URL would replace ours. The pool hands the connection out once it is done.
    onConnect: async (client) => {
      await client.query('SET plan_cache_mode = force_generic_plan');
    },
  });
  for (const each of [pool, genericPlanPool]) {
    // An idle client that loses its connection (server restart) emits 'error' on the pool; without
    // a listener that would crash the process. The pool drops the client and opens a new one later.
    each.on('error', () => undefined);
  }
  return {
    pool,
    genericPlanPool,
    server: databaseServer({ connectionString: databaseUrl }),
    description: redactUrl(databaseUrl),
    openSession: async () => {
      // Keep-alive probes notice a connection the network cut, so a lock held on it is known lost.
      const client = new Client({ connectionString: databaseUrl, keepAlive: true });
      client.on('error', () => undefined);
      await client.connect();
      return client;
    },
    close: async () => {
      await Promise.all([pool.end(), genericPlanPool.end()]);
    },
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
