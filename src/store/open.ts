import type { Logger } from '../logging/logger';
import { connectToServer, type Database } from './database';

/** A Postgres server when a URL is given, otherwise the embedded database in `dataDir`. */
export async function openDatabase(
  options: { databaseUrl: string | null; dataDir: string },
  logger?: Logger,
): Promise<Database> {
  if (options.databaseUrl) return connectToServer(options.databaseUrl);
  // Loaded only without a server: PGlite's JavaScript (530 KB of sources, which V8 keeps, and
  // what it compiles) has no use in a service whose database is a server: 2 to 3 MB resident.
  const { startEmbeddedDatabase } = require('./embedded') as typeof import('./embedded');
  return startEmbeddedDatabase({ dataDir: options.dataDir, logger });
}
