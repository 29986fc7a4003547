import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

const SCRIPT = resolve(__dirname, '../../scripts/throwaway-postgres.sh');

export interface ThrowawayPostgres {
  url: string;
  /** Stops the server, keeping its data (an outage). */
  halt(): Promise<void>;
  /** Starts it again on the same port. */
  resume(): Promise<void>;
  /** Stops it and removes its data. */
  remove(): Promise<void>;
}

/**
 * A PostgreSQL cluster of the test's own (scripts/throwaway-postgres.sh), for tests that stop the
 * server: the suite's shared one serves the other test files meanwhile.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const assignments = await script('start');
  const url = /^DATABASE_URL=(.+)$/m.exec(assignments)?.[1];
  const dir = /^PG_THROWAWAY_DIR=(.+)$/m.exec(assignments)?.[1];
  if (!url || !dir) throw new Error(`throwaway-postgres.sh printed no cluster: ${assignments}`);
  return {
    url,
    halt: async () => void (await script('halt', dir)),
    resume: async () => void (await script('resume', dir)),
    remove: async () => void (await script('stop', dir)),
  };
}

function script(...args: string[]): Promise<string> {
  return new Promise((done, fail) =>
    execFile('bash', [SCRIPT, ...args], { timeout: 60_000 }, (error, stdout, stderr) =>
      error
        ? fail(new Error(`throwaway-postgres.sh ${args[0]} failed: ${stderr || error.message}`))
        : done(stdout),
    ),
  );
}
