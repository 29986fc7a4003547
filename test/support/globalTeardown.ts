import { rmSync } from 'node:fs';
import { BROWSER_SKIPPED_ENV } from './browserSkipped';

/** Removes the PGlite snapshot that globalSetup wrote; says last why browser tests were skipped. */
export default async function globalTeardown(): Promise<void> {
  const snapshot = process.env.CRONDECK_TEST_SNAPSHOT;
  if (snapshot) rmSync(snapshot, { force: true });
  const skipped = process.env[BROWSER_SKIPPED_ENV];
  if (skipped) process.stderr.write(`\n${skipped}\n`);
}
