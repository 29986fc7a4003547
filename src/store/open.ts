import type { Logger } from '../logging/logger';
import { connectToServer, type Database } from './database';
import { startEmbeddedDatabase } from './embedded';

/** A Postgres server when a URL is given, otherwise the embedded database in `dataDir`. */
export async function openDatabase(
  options: { databaseUrl: string | null; dataDir: string },
  logger?: Logger,
): Promise<Database> {
  if (options.databaseUrl) return connectToServer(options.databaseUrl);
  return startEmbeddedDatabase({ dataDir: options.dataDir, logger });
}
