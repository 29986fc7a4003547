import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'pg';
import { readEnvironment } from '../../src/config/environment';
import { startService } from '../../src/service';
import { connectToServer, type Database } from '../../src/store/database';
import { databaseServer } from '../../src/store/databaseServer';
import { createTestDatabase, onPostgresServer } from '../support/database';
import { writeKubeconfigFile } from '../support/kube/kubeconfig';
import { createMemoryLogger } from '../support/memoryLogger';
import { eventually } from '../support/service';
import { TcpProxy } from '../support/tcpProxy';

const ROOT = resolve(__dirname, '../..');
const REPORT_SECRET = 'x'.repeat(40);
const PASSWORD = 'never-printed-password';

/** How a connection reaches the test database: the parts of its URL. */
interface Target {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
}

/** The test database, and a proxy in front of it that refuses connections until `open()`. */
async function databaseBehindClosedProxy(): Promise<{
  proxy: TcpProxy;
  /** The test database's URL through the proxy. */
  url: string;
  /** The service's database through the proxy, as `crondeck serve` would open it. */
  db: Database;
  open(): Promise<void>;
  close(): Promise<void>;
}> {
  const real = await createTestDatabase();
  const options = real.pool.options as Partial<Target> & { connectionString?: string };
  const parsed = options.connectionString ? new URL(options.connectionString) : undefined;
  const target: Target = parsed
    ? {
        host: parsed.hostname,
        port: Number(parsed.port || 5432),
        user: decodeURIComponent(parsed.username),
        password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
        database: parsed.pathname.slice(1),
      }
    : { host: options.host!, port: Number(options.port), user: options.user!, database: options.database! };
  const proxy = new TcpProxy(target.host, target.port);
  const port = await proxy.start();
  await proxy.cut();
  const through = { ...target, host: '127.0.0.1', port };
  const url = new URL(`postgres://127.0.0.1:${port}/${through.database}`);
  url.username = encodeURIComponent(through.user);
  if (through.password) url.password = encodeURIComponent(through.password);
  let db: Database;
  if (onPostgresServer) {
    db = connectToServer(url.toString(), 5);
  } else {
    // The embedded database is one session: one connection, as the service has it.
    const pool = new Pool({ ...through, max: 1 });
    pool.on('error', () => undefined);
    db = {
      pool,
      genericPlanPool: pool,
      server: databaseServer(through),
      description: 'behind a proxy',
      close: () => pool.end(),
    };
  }
  return {
    proxy,
    url: url.toString(),
    db,
    open: () => proxy.restore(),
    async close() {
      await db.close().catch(() => undefined);
      await proxy.stop();
      await real.close();
    },
  };
}

/** A loopback port that refuses connections: one just opened and closed again. */
async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

interface Crondeck {
  child: ChildProcess;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stderr; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `crondeck <command>` as a real process, run from the sources, with `env` on a clean slate. */
function crondeck(command: 'serve' | 'controller', env: Record<string, string>): Crondeck {
  const child = spawn(
    process.execPath,
    ['-r', join(ROOT, 'test/support/registerTypeScript.js'), join(ROOT, 'src/cli.ts'), command],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NODE_OPTIONS: '', PORT: '0', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const wake of waiters) wake();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  void exited.then(() => {
    for (const wake of waiters) wake();
  });
  return {
    child,
    stderr: () => stderr,
    exited,
    waitFor: (pattern) =>
      new Promise((done, fail) => {
        const check = () => {
          const found = pattern.exec(stderr);
          const ended = child.exitCode !== null || child.signalCode !== null;
          if (!found && !ended) return;
          waiters.delete(check);
          if (found) done(found);
          else fail(new Error(`crondeck ended before ${pattern}:\n${stderr}`));
        };
        waiters.add(check);
        check();
      }),
  };
}

/** Resolves with how the process ended, or with 'still running' after `ms` (a hang, not a speed). */
function endWithin(program: Crondeck, ms: number) {
  return Promise.race([
    program.exited,
    new Promise<'still running'>((done) => setTimeout(() => done('still running'), ms).unref()),
  ]);
}

/** The controller's environment but the database: a cluster it never reaches before its database. */
function controllerEnv(dir: string): Record<string, string> {
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfigFile(kubeconfig, { server: 'https://127.0.0.1:1', token: 'unused' });
  return {
    KUBECONFIG: kubeconfig,
    SERVICE_REPORT_SECRET: REPORT_SECRET,
    CRONDECK_REPORT_URL: 'http://127.0.0.1:1',
    CRONDECK_HEALTH_PORT: '0',
  };
}

describe('the start, while the database server is not there yet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'crondeck-db-wait-'));
  const started: ChildProcess[] = [];
  afterAll(() => {
    for (const child of started)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const run = (command: 'serve' | 'controller', env: Record<string, string>) => {
    const program = crondeck(command, command === 'controller' ? { ...controllerEnv(dir), ...env } : env);
    started.push(program.child);
    return program;
  };

  it('waits for a database that refuses connections, then starts and answers /health', async () => {
    const { db, url, open, close } = await databaseBehindClosedProxy();
    const logger = createMemoryLogger();
    const address = `127.0.0.1:${new URL(url).port}`;
    const starting = startService({
      env: readEnvironment({ PORT: '0', HOST: '127.0.0.1', SERVICE_DATABASE_WAIT_SECONDS: '300' }),
      db,
      logger,
      local: { autoTick: false, shutdownGraceMs: 2000, leaderRetryMs: 200 },
    });
    // A start that gives up on the closed port fails the test at once, with its error.
    let failed: unknown;
    starting.catch((error: unknown) => (failed = error ?? 'failed'));
    try {
      const waiting = await eventually(async () => {
        if (failed) throw failed;
        return logger.lines.find((line) =>
          String(line.msg).startsWith(`waiting for the database at ${address}: `),
        );
      });
      expect(waiting.msg).toMatch(/: connect ECONNREFUSED 127\.0\.0\.1:\d+; retrying in [\d.]+ s$/);
      await open();
      const service = await starting;
      try {
        const health = await fetch(`${service.url}/health`);
        expect(health.status).toBe(200);
        expect(await health.json()).toMatchObject({ status: 'ok' });
      } finally {
        await service.stop();
      }
    } finally {
      await close();
    }
  });

  (onPostgresServer ? it : it.skip)(
    '`crondeck serve` waits for the server, then starts and answers /health',
    async () => {
      const { url, open, close } = await databaseBehindClosedProxy();
      try {
        const serve = run('serve', { DATABASE_URL: url, SERVICE_REPORT_SECRET: REPORT_SECRET });
        await serve.waitFor(/"msg":"waiting for the database at 127\.0\.0\.1:\d+: connect ECONNREFUSED/);
        await open();
        const [, listening] = await serve.waitFor(/"msg":"crondeck is listening","url":"([^"]+)"/);
        const health = await fetch(`${listening}/health`);
        expect(health.status).toBe(200);
        serve.child.kill('SIGTERM');
        expect(await serve.exited).toEqual({ code: 0, signal: null });
      } finally {
        await close();
      }
    },
  );

  it.each(['serve', 'controller'] as const)(
    '`crondeck %s` gives up on a port that never opens once the wait is over, naming the variable',
    async (command) => {
      const port = await refusingPort();
      const program = run(command, {
        DATABASE_URL: `postgres://crondeck:${PASSWORD}@127.0.0.1:${port}/crondeck`,
        SERVICE_DATABASE_WAIT_SECONDS: '1',
      });
      // Far beyond the wait of 1 s, and far short of the default of 120 s.
      expect(await endWithin(program, 20_000)).toEqual({ code: 1, signal: null });
      expect(program.stderr()).toContain(
        `crondeck: the database at 127.0.0.1:${port} did not accept a connection within ` +
          `SERVICE_DATABASE_WAIT_SECONDS=1 s: connect ECONNREFUSED 127.0.0.1:${port}\n`,
      );
      expect(program.stderr()).not.toContain(PASSWORD);
    },
  );

  it('waits for a host name that does not resolve yet, as a starting StatefulSet’s Service', async () => {
    const serve = run('serve', {
      DATABASE_URL: `postgres://crondeck:${PASSWORD}@crondeck-postgresql.invalid:5432/crondeck`,
      SERVICE_DATABASE_WAIT_SECONDS: '1',
    });
    expect(await endWithin(serve, 20_000)).toEqual({ code: 1, signal: null });
    // Given up once the wait was over, not at once: the lookup's failure is one to wait out.
    expect(serve.stderr()).toMatch(
      /^crondeck: the database at crondeck-postgresql\.invalid:5432 did not accept a connection within SERVICE_DATABASE_WAIT_SECONDS=1 s: getaddrinfo (ENOTFOUND|EAI_AGAIN) crondeck-postgresql\.invalid$/m,
    );
  });

  it.each(['serve', 'controller'] as const)(
    '`crondeck %s` stops on SIGTERM while it waits for the database',
    async (command) => {
      const program = run(command, {
        DATABASE_URL: `postgres://crondeck:${PASSWORD}@127.0.0.1:${await refusingPort()}/crondeck`,
      });
      await program.waitFor(/"msg":"waiting for the database at /);
      program.child.kill('SIGTERM');
      // The wait would last 120 s.
      expect(await endWithin(program, 20_000)).not.toBe('still running');
      expect(program.stderr()).not.toContain(PASSWORD);
    },
  );

  it('fails at once on a URL that cannot be read, without printing it', async () => {
    const serve = run('serve', { DATABASE_URL: `crondeck:${PASSWORD}@db.example/crondeck` });
    expect(await endWithin(serve, 20_000)).toEqual({ code: 1, signal: null });
    expect(serve.stderr()).toContain(
      'crondeck: DATABASE_URL is not a URL of the form postgres://user:password@host:port/database\n',
    );
    expect(serve.stderr()).not.toContain(PASSWORD);
  });

  describe('on a PostgreSQL server', () => {
    const serverIt = onPostgresServer ? it : it.skip;
    const serverUrl = () => new URL(process.env.DATABASE_URL!);

    serverIt.each([
      ['a user it does not know', (url: URL) => (url.username = 'crondeck_no_such_user')],
      ['a database it does not have', (url: URL) => (url.pathname = '/crondeck_no_such_database')],
    ])('refuses %s: the start fails at once, without waiting', async (_, change) => {
      const url = serverUrl();
      url.password = PASSWORD;
      change(url);
      const serve = run('serve', { DATABASE_URL: url.toString(), SERVICE_DATABASE_WAIT_SECONDS: '300' });
      expect(await endWithin(serve, 20_000)).toEqual({ code: 1, signal: null });
      expect(serve.stderr()).toMatch(
        new RegExp(
          `^crondeck: cannot connect to the database at ${url.hostname}:${url.port}: ` +
            '(password authentication failed for user|role|database) "crondeck_no_such_\\w+"' +
            '.* \\(not retried: waiting cannot mend it; check DATABASE_URL\\)$',
          'm',
        ),
      );
      expect(serve.stderr()).not.toContain('waiting for the database');
      expect(serve.stderr()).not.toContain(PASSWORD);
    });
  });
});
