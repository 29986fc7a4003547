import { readdirSync, readFileSync } from 'node:fs';

/**
 * Signals an attempt that another container of the pod started (the pod shares one process
 * namespace). Where the job container had `setsid`, the attempt's shell leads a process group and
 * the whole group gets the signal. Otherwise the shell shares its container's group, which must
 * not be signalled (it holds the job container's own script), so the signal goes to the shell and
 * every process descended from it, found through /proc. Returns false when nothing was left.
 */
export function signalAttempt(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    // No such group: the image has no setsid.
  }
  let signalled = false;
  for (const each of [pid, ...descendantsOf(pid)]) {
    try {
      process.kill(each, signal);
      signalled = true;
    } catch {
      // Already gone.
    }
  }
  return signalled;
}

/** Whether a process of that id exists (it may belong to another container of the pod). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but is not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Every process whose chain of parents leads to `pid`, from /proc (empty where there is none). */
function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent === null) continue;
    const siblings = children.get(parent) ?? [];
    siblings.push(Number(entry));
    children.set(parent, siblings);
  }
  const found: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop()!) ?? []) {
      found.push(child);
      pending.push(child);
    }
  }
  return found;
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: ppid is field 4.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}
