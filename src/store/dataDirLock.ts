import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

const LOCK_FILE = 'crondeck.lock';

interface Holder {
  pid: number;
  /** The process's start time (jiffies since boot, /proc/PID/stat), so a reused PID is not taken for it. */
  startTime: string | null;
}

export interface DataDirLock {
  release(): void;
}

/**
 * Takes the data directory for this process. Two services on one embedded database would each
 * see only their own writes, and the second to stop would overwrite the first's: the second to
 * start must refuse. The lock is a file naming the holder's PID; a holder that is gone (crashed,
 * killed, or a zombie its parent has not reaped) does not block the next start.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(resolve(dataDir), LOCK_FILE);
  const me: Holder = { pid: process.pid, startTime: startTimeOf(process.pid) };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(path, JSON.stringify(me))) {
      return {
        release() {
          // Only our own: a lock taken over after a stall of ours belongs to someone else.
          if (readLock(path) === JSON.stringify(me)) rmSync(path, { force: true });
        },
      };
    }
    const content = readLock(path);
    if (content === null) continue;
    const holder = parseHolder(content);
    if (holder && isAlive(holder)) {
      throw new Error(
        `the data directory ${dataDir} is in use by another crondeck (pid ${holder.pid}): stop it first, ` +
          'or give this one another SERVICE_DATA_DIR',
      );
    }
    // Stale. Removed only if it is still the very file judged stale: a second starter may have
    // taken it over in between, and its fresh lock must stay.
    if (readLock(path) === content) rmSync(path, { force: true });
  }
  throw new Error(`could not take the lock ${path}`);
}

function createExclusive(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readLock(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function parseHolder(content: string): Holder | null {
  try {
    const parsed = JSON.parse(content) as Partial<Holder>;
    if (!Number.isInteger(parsed.pid) || (parsed.pid as number) <= 0) return null;
    return { pid: parsed.pid as number, startTime: parsed.startTime ?? null };
  } catch {
    // A file half written by a start that crashed at that moment: nobody holds it.
    return null;
  }
}

/** Fields of /proc/PID/stat after the command name, which may itself hold spaces and parentheses. */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function startTimeOf(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

function isAlive(holder: Holder): boolean {
  if (holder.pid === process.pid) return false;
  const fields = procStat(holder.pid);
  if (fields) {
    // A zombie has exited; only its parent has not collected its status yet.
    if (fields[0] === 'Z' || fields[0] === 'X') return false;
    return holder.startTime === null || fields[19] === holder.startTime;
  }
  if (process.platform === 'linux') return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
