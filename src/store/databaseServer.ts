import { Client, type ClientConfig } from 'pg';

/** A PostgreSQL server as the start-up sees it: where it is, and whether it takes a session now. */
export interface DatabaseServer {
  /**
   * `host:port` (a directory for a Unix socket), for messages: never the credentials. Null when the
   * URL cannot be read.
   */
  address: string | null;
  /**
   * Opens a session and closes it again, or fails as connecting failed: refused, not found, the
   * server still starting up, a password refused, or no answer within `timeoutMs`.
   */
  checkSession(timeoutMs: number): Promise<void>;
}

/** The forms `pg` reads a connection string in: a URL of these schemes, or a socket directory. */
const SCHEMES = ['postgres:', 'postgresql:', 'socket:'];

/**
 * The server `config` connects to. A URL that cannot be read makes every check fail with a message
 * that says so, before any connection: `pg` reads `db.example/crondeck` as a database on a host
 * named `base`, and `user:password@db.example/crondeck` as one on localhost, and the start would
 * wait for either in vain.
 */
export function databaseServer(config: ClientConfig): DatabaseServer {
  let address: string | null = null;
  let unreadable: unknown = null;
  try {
    address = addressOf(config);
  } catch (error) {
    unreadable = error;
  }
  return {
    address,
    async checkSession(timeoutMs) {
      if (unreadable !== null) throw unreadable;
      const client = new Client({ ...config, connectionTimeoutMillis: timeoutMs });
      // Whatever the server says after the session opened is of no interest: it is closed at once.
      client.on('error', () => undefined);
      await client.connect();
      await client.end();
    },
  };
}

/** `host:port` as the pools will read it from `config`, or a message saying why they cannot. */
function addressOf(config: ClientConfig): string {
  const text = config.connectionString;
  if (text !== undefined && !text.startsWith('/') && !SCHEMES.includes(schemeOf(text))) {
    throw new Error('DATABASE_URL is not a URL of the form postgres://user:password@host:port/database');
  }
  let parsed: Client;
  try {
    // Parsed as the pools parse it (reading the files that `sslrootcert` and its kin name), without
    // connecting.
    parsed = new Client(config);
  } catch (error) {
    // Its message only: a URL's parse error carries the URL, password and all, as its `input`.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`DATABASE_URL cannot be used: ${(error as Error).message}`);
  }
  return `${parsed.host}:${parsed.port}`;
}

/** The URL's scheme, or '' for what is no URL (whose parse error, carrying the URL, is dropped). */
function schemeOf(text: string): string {
  try {
    return new URL(text).protocol;
  } catch {
    return '';
  }
}
