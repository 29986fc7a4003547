import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT, stopChild, track } from '../harness';

/** The stand-in for cronbase (cronbaseStandIn.mjs), listening, and the store settings it runs with. */
export interface CronbaseStandIn {
  url: string;
  /** SQLite's `journal_mode` and `synchronous` as the stand-in's database reports them. */
  journalMode: string;
  synchronous: number;
  bunVersion: string;
  stop(): Promise<void>;
}

/** SQLite's names for the values of `PRAGMA synchronous`. */
const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

export function describeSynchronous(value: number): string {
  return SYNCHRONOUS[value] ?? String(value);
}

/**
 * Starts the stand-in on Bun (fetched from the npm registry by scripts/bun.sh) with its database in
 * `dataDir`, which should be on the disk the compared database uses.
 */
export async function startCronbaseStandIn(dataDir: string): Promise<CronbaseStandIn> {
  const bunDir = execFileSync('bash', [join(REPO_ROOT, 'scripts', 'bun.sh')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .toString()
    .trim();
  const bun = join(bunDir, 'bun');
  const bunVersion = execFileSync(bun, ['--version']).toString().trim();
  const child = track(
    spawn(bun, [join(REPO_ROOT, 'bench', 'standins', 'cronbaseStandIn.mjs')], {
      env: { PATH: process.env.PATH ?? '', STANDIN_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const announced = await new Promise<{ port: number; journalMode: string; synchronous: number }>(
    (resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the cronbase stand-in did not start within 10 s')),
        10_000,
      );
      child.once('exit', (code) =>
        reject(new Error(`the cronbase stand-in exited with code ${code} before listening`)),
      );
      createInterface({ input: child.stdout! }).once('line', (line) => {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      });
    },
  );
  return {
    url: `http://127.0.0.1:${announced.port}`,
    journalMode: announced.journalMode,
    synchronous: announced.synchronous,
    bunVersion,
    stop: () => stopChild(child),
  };
}
