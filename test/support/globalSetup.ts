import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/logging/logger';
import { startEmbeddedDatabase } from '../../src/store/embedded';
import { migrate } from '../../src/store/migrate';

/**
 * Without DATABASE_URL the suite runs on PGlite. A fresh PGlite takes seconds to initialise, so it
 * is done once here: migrated, dumped to a tarball, and every test file starts from a copy.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) return;
  const db = await startEmbeddedDatabase();
  await migrate(db.pool, createLogger({ level: 'error' }));
  const snapshot = await db.pglite.dumpDataDir('none');
  const path = join(tmpdir(), `crondeck-test-snapshot-${process.pid}.tar`);
  writeFileSync(path, Buffer.from(await snapshot.arrayBuffer()));
  await db.close();
  process.env.CRONDECK_TEST_SNAPSHOT = path;
}
