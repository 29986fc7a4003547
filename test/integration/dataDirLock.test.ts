import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lockDataDir } from '../../src/store/dataDirLock';

const ROOT = resolve(__dirname, '../..');

interface Serve {
  child: ChildProcess;
  /** Resolves with the URL once it listens, or rejects with its stderr when it exits first. */
  listening: Promise<string>;
  exited: Promise<{ code: number | null; stderr: string }>;
}

/** `crondeck serve` as a real process of its own, run from the sources (see registerTypeScript.js). */
function serve(dataDir: string): Serve {
  const child = spawn(
    process.execPath,
    ['-r', join(ROOT, 'test/support/registerTypeScript.js'), join(ROOT, 'src/cli.ts'), 'serve'],
    {
      cwd: ROOT,
      // The embedded database, whatever the suite runs on: the lock guards a data directory.
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        DATABASE_URL: '',
        SERVICE_DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  const exited = new Promise<{ code: number | null; stderr: string }>((done) =>
    child.on('exit', (code) => done({ code, stderr })),
  );
  const listening = new Promise<string>((done, fail) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /"msg":"crondeck is listening","url":"([^"]+)"/.exec(stderr)?.[1];
      if (url) done(url);
    });
    void exited.then(({ code }) => fail(new Error(`exited with ${code}: ${stderr}`)));
  });
  listening.catch(() => undefined);
  return { child, listening, exited };
}

describe('one service per data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'crondeck-lock-'));
  const started: ChildProcess[] = [];
  afterAll(() => {
    for (const child of started)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a second `crondeck serve` while the first lives, and starts after the first crashed', async () => {
    const first = serve(dataDir);
    started.push(first.child);
    const url = await first.listening;

    const second = serve(dataDir);
    started.push(second.child);
    const refused = await second.exited;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `crondeck: the data directory ${dataDir} is in use by another crondeck (pid ${first.child.pid})`,
    );
    expect((await fetch(`${url}/health`)).status).toBe(200);

    // A crash: no chance to remove the lock file, which stays behind naming a dead process.
    first.child.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(dataDir, 'crondeck.lock'))).toBe(true);

    const third = serve(dataDir);
    started.push(third.child);
    const thirdUrl = await third.listening;
    expect((await fetch(`${thirdUrl}/health`)).status).toBe(200);
    third.child.kill('SIGTERM');
    expect((await third.exited).code).toBe(0);
    expect(existsSync(join(dataDir, 'crondeck.lock'))).toBe(false);
  }, 180_000);
});

describe('lockDataDir and the holder it finds', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'crondeck-lockfile-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const startTime = (pid: number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  };
  const holdBy = (pid: number, start: string | undefined) =>
    writeFileSync(join(dir, 'crondeck.lock'), JSON.stringify({ pid, startTime: start }));

  /** A process that runs `script` in sh; resolves once it printed its first line. */
  const shell = async (script: string) => {
    const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    const line = await new Promise<string>((done) =>
      child.stdout.once('data', (chunk: Buffer) => done(String(chunk))),
    );
    return { child, line: line.trim() };
  };

  it('is refused while a live process holds the lock', async () => {
    const { child } = await shell('echo up; exec sleep 60');
    try {
      holdBy(child.pid!, startTime(child.pid!));
      expect(() => lockDataDir(dir)).toThrow(`is in use by another crondeck (pid ${child.pid})`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes over a lock whose PID now belongs to another process (started later)', async () => {
    const { child } = await shell('echo up; exec sleep 60');
    try {
      holdBy(child.pid!, '1');
      lockDataDir(dir).release();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes over a lock held by a zombie that nobody has reaped', async () => {
    // The background `sleep 1` outlives the shell, which becomes `sleep 60` and never collects it.
    const { child, line } = await shell('sleep 1 & echo $!; exec sleep 60');
    try {
      const zombie = Number(line);
      let state = '';
      for (let i = 0; i < 1000 && state !== 'Z'; i++) {
        const stat = readFileSync(`/proc/${zombie}/stat`, 'utf8');
        state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
        if (state !== 'Z') await new Promise((wait) => setTimeout(wait, 10));
      }
      expect(state).toBe('Z');
      holdBy(zombie, startTime(zombie));
      const lock = lockDataDir(dir);
      expect(JSON.parse(readFileSync(join(dir, 'crondeck.lock'), 'utf8')).pid).toBe(process.pid);
      lock.release();
      expect(existsSync(join(dir, 'crondeck.lock'))).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
