import { readFileSync } from 'node:fs';

/** Alive and not a zombie (a killed orphan stays a zombie until init reaps it). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Waits up to `timeoutMs` for `pid` to be gone (a killed process may show for a moment). */
export async function endsWithin(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** The pid a command wrote to `file`, once it is there. */
export async function pidFrom(file: string, timeoutMs = 5000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const pid = Number(readFileSync(file, 'utf8'));
      if (pid > 0) return pid;
    } catch {
      // Not written yet.
    }
    if (Date.now() > deadline) throw new Error(`no pid in ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Best-effort cleanup of processes a test started. */
export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
