import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Owner only: whatever the umask, others may neither enter, read nor write (docs/configuration.md: what a hostile local user can and cannot do). */
const DIR_MODE = 0o700;
/** Group and other bits. */
const OPEN_TO_OTHERS = 0o077;

/**
 * Creates the embedded database's data directory, or checks the one there: it must belong to this
 * user, who alone may enter it. One found open to others (created by an earlier version, or by
 * hand with the usual umask) is made private; answers the mode it had then, else null.
 */
export function claimDataDir(dataDir: string): number | null {
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  const stat = statSync(dataDir);
  if (!stat.isDirectory()) throw new Error(`the data directory ${dataDir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new Error(
      `the data directory ${dataDir} belongs to uid ${stat.uid}, and this service runs as uid ${uid}: ` +
        `run it as that user, or give it its own directory (chown -R ${uid} ${dataDir})`,
    );
  }
  const mode = stat.mode & 0o777;
  if (mode === DIR_MODE) return null;
  chmodSync(dataDir, DIR_MODE);
  return (mode & OPEN_TO_OTHERS) === 0 ? null : mode;
}

/**
 * Takes every group and other permission off what lies under `dir`: its directories become 0700
 * and its files 0600 (the owner's bits stay as they are).
 * PGlite writes the files of a new data directory 0666, and some files at every start 0644,
 * whatever the umask (its Postgres applies a umask of its own), so it is done after it writes.
 * Symbolic links are not followed. Answers how many entries it changed.
 */
export function makeTreePrivate(dir: string): number {
  let changed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) changed += makeTreePrivate(path);
    const mode = lstatSync(path).mode & 0o777;
    if ((mode & OPEN_TO_OTHERS) === 0) continue;
    chmodSync(path, mode & ~OPEN_TO_OTHERS);
    changed++;
  }
  return changed;
}
