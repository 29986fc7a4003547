import { chmodSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { Pool } from 'pg';
import type { Logger } from '../logging/logger';
import { lockDataDir } from './dataDirLock';
import type { Database } from './database';
import { embeddedStartParams } from './embeddedSettings';
import { initialiseDataDirApart } from './initialiseDataDir';
import { claimDataDir, makeTreePrivate } from './privateDataDir';
import { openPrivateSocketDir, SOCKET_PORT } from './privateSocketDir';
import { keepWebAssemblyOnBaselineCompiler } from './wasmTiering';

export interface EmbeddedOptions {
  /** Data directory; `undefined` keeps the database in memory. */
  dataDir?: string;
  /** A tarball from `PGlite.dumpDataDir()` to start from (tests clone a migrated snapshot). */
  loadDataDir?: Blob;
  /** Told when the data directory had to be made private. */
  logger?: Logger;
}

/**
 * Starts PGlite (Postgres compiled to WebAssembly) in this process and serves it on a Unix socket,
 * so the rest of the service talks to it through `pg` exactly as it talks to a real server.
 * PGlite is a single backend session: the pool holds exactly one connection.
 *
 * The server accepts any user and any password, so it must not be reachable by anyone else: not a
 * loopback port (any local account can connect to one), but a socket in a directory only this
 * user can enter (a job inserted there would run as the service's user).
 */
export async function startEmbeddedDatabase(
  options: EmbeddedOptions = {},
): Promise<Database & { pglite: PGlite }> {
  const dataDir = options.dataDir;
  // The data holds webhook URLs and SMTP passwords, and its configuration is the server's own.
  const openMode = dataDir ? claimDataDir(dataDir) : null;
  // Before PGlite opens the files: a second process must not even read them.
  const lock = dataDir ? lockDataDir(dataDir) : undefined;
  let pglite: PGlite;
  try {
    const startParams = embeddedStartParams();
    keepWebAssemblyOnBaselineCompiler();
    if (dataDir && !options.loadDataDir) await initialiseDataDirApart(dataDir, startParams);
    // PGlite sets the modes of what it writes itself (0666 for a new directory's files, 0644 for
    // some written at every start), whatever the umask: each is taken back once written.
    if (dataDir) {
      const files = makeTreePrivate(dataDir);
      if (openMode !== null) {
        options.logger?.warn('the data directory was open to other users; made it private', {
          dataDir,
          mode: openMode.toString(8),
          files,
        });
      }
    }
    pglite = await PGlite.create(dataDir, {
      startParams,
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    });
    if (dataDir) makeTreePrivate(dataDir);
  } catch (error) {
    lock?.release();
    throw error;
  }
  // The pool holds one connection, but pg's pool drops a connection after any failed query and
  // opens a new one at once, while the old socket is still closing: leave room for that overlap.
  const socketDir = openPrivateSocketDir(dataDir);
  const server = new PGLiteSocketServer({ db: pglite, path: socketDir.socketPath, maxConnections: 4 });
  await server.start();
  // The directory is what keeps others out; the socket's own mode says so a second time.
  chmodSync(socketDir.socketPath, 0o600);
  const pool = new Pool({
    host: socketDir.dir,
    port: SOCKET_PORT,
    user: 'postgres',
    database: 'postgres',
    max: 1,
    // Every connection shares the one backend session, so what an earlier connection prepared is
    // still there, while a new pg client believes it has prepared nothing: its first named
    // statement would fail with "already exists". Start each connection as a fresh server session
    // would; the pool hands the connection out only once this is done.
    onConnect: async (client) => {
      await client.query('DEALLOCATE ALL');
    },
  });
  pool.on('error', () => undefined);
  return {
    pool,
    // One backend session for everything: its plans stay PostgreSQL's own choice.
    genericPlanPool: pool,
    pglite,
    description: dataDir ? `embedded PGlite in ${dataDir}` : 'embedded PGlite in memory',
    async close() {
      await pool.end();
      await server.stop();
      await pglite.close();
      if (dataDir) makeTreePrivate(dataDir);
      socketDir.remove();
      lock?.release();
    },
  };
}
