import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite creates a fresh data directory with a second Postgres and an initdb module of its own,
 * each in a WebAssembly memory, and copies the result over as a tarball: some 500 MB at once, and
 * what the allocator got back from it stayed with the service for good (about 50 MB more after the
 * bench's load than on a directory that existed). A short-lived process does this work instead, so
 * that its memory goes back to the system when it exits; the service then opens the directory as
 * on any later start.
 */
export async function initialiseDataDirApart(dataDir: string, startParams: string[]): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  // Owner only for what it creates with the process's modes (its directories); the files' modes
  // PGlite sets itself, and the caller takes them back.
  const script =
    'process.umask(0o077);' +
    'const [, pglite, dir, params] = process.argv;' +
    'require(pglite).PGlite.create(dir, { startParams: JSON.parse(params) }).then((db) => db.close())' +
    '.catch((error) => { process.stderr.write(String((error && error.stack) || error)); process.exit(1); });';
  const args = ['-e', script, require.resolve('@electric-sql/pglite'), dataDir, JSON.stringify(startParams)];
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error)
        reject(
          new Error(`initialising the embedded database in ${dataDir} failed: ${stderr || error.message}`),
        );
      else resolve();
    });
  });
}
