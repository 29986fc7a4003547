import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

const ROOT = resolve(__dirname, '../..');
const run = promisify(execFile);

export interface E2eDatabase {
  url: string;
  close(): Promise<void>;
}

/**
 * The database `crondeck serve` and `crondeck controller` share. In Kubernetes mode both need a
 * PostgreSQL server (the embedded PGlite is one session of one process), so: a fresh database on
 * the server of DATABASE_URL, dropped afterwards, as the tests make one per file; or, without
 * DATABASE_URL, a throwaway PostgreSQL from scripts/throwaway-postgres.sh (the machine's binaries).
 */
export async function provideDatabase(env: NodeJS.ProcessEnv = process.env): Promise<E2eDatabase> {
  if (env.DATABASE_URL) return freshDatabaseOn(env.DATABASE_URL);
  const script = resolve(ROOT, 'scripts/throwaway-postgres.sh');
  let stdout: string;
  try {
    ({ stdout } = await run('bash', [script, 'start'], { timeout: 60_000 }));
  } catch (error) {
    throw new Error(
      `the e2e suite needs PostgreSQL: set DATABASE_URL, or install the server binaries for ` +
        `scripts/throwaway-postgres.sh (${(error as Error).message})`,
      { cause: error },
    );
  }
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(stdout)?.[1]?.trim();
  const url = value('DATABASE_URL');
  const dir = value('PG_THROWAWAY_DIR');
  if (!url || !dir) throw new Error(`throwaway-postgres.sh printed no DATABASE_URL: ${stdout}`);
  return {
    url,
    async close() {
      await run('bash', [script, 'stop', dir], { timeout: 60_000 });
    },
  };
}

async function freshDatabaseOn(serverUrl: string): Promise<E2eDatabase> {
  const name = `crondeck_e2e_${randomBytes(6).toString('hex')}`;
  await withAdmin(serverUrl, (admin) => admin.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async close() {
      await withAdmin(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

async function withAdmin<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
