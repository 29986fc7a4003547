import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/logging/logger';
import { startEmbeddedDatabase } from '../../src/store/embedded';
import { migrate } from '../../src/store/migrate';
import { BROWSER_SKIPPED_ENV } from './browserSkipped';
import { ensureChromium, skipNotice } from './chromium';

/**
 * Once before the suite: the dashboard tests' browser, installed where missing and possible (or
 * their skipping decided, see chromium.ts), and without DATABASE_URL the PGlite snapshot every test
 * file starts from: a fresh PGlite takes seconds to initialise, so it is done once here, migrated
 * and dumped to a tarball.
 */
export default async function globalSetup(): Promise<void> {
  const notice = skipNotice(await ensureChromium({ log: (line) => process.stderr.write(`\n${line}\n`) }));
  if (notice) process.env[BROWSER_SKIPPED_ENV] = notice;
  if (process.env.DATABASE_URL) return;
  const db = await startEmbeddedDatabase();
  await migrate(db.pool, createLogger({ level: 'error' }));
  const snapshot = await db.pglite.dumpDataDir('none');
  const path = join(tmpdir(), `crondeck-test-snapshot-${process.pid}.tar`);
  writeFileSync(path, Buffer.from(await snapshot.arrayBuffer()));
  await db.close();
  process.env.CRONDECK_TEST_SNAPSHOT = path;
}
