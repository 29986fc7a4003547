import { rmSync } from 'node:fs';

/** Removes the PGlite snapshot that globalSetup wrote. */
export default async function globalTeardown(): Promise<void> {
  const snapshot = process.env.CRONDECK_TEST_SNAPSHOT;
  if (snapshot) rmSync(snapshot, { force: true });
}
