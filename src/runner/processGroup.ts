import { readFileSync } from 'node:fs';

/**
 * A process group as the kernel knows it, with what tells it apart from a later group that reuses
 * the same id: the leader's start time (clock ticks since boot) and the boot it belongs to.
 */
export interface ProcessGroup {
  pgid: number;
  leaderStartTicks: string;
  bootId: string;
}

/** One process as /proc/PID/stat shows it. */
export interface ProcessStat {
  pid: number;
  state: string;
  pgid: number;
  startTicks: string;
}

/** Reads /proc/PID/stat; null when the process is gone or /proc is not there (not Linux). */
export function readProcessStat(pid: number): ProcessStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields counted from 3 (state): pgid is field 5, starttime field 22.
  const state = fields[0];
  const pgid = Number(fields[2]);
  const startTicks = fields[19];
  if (!state || !Number.isInteger(pgid) || !startTicks) return null;
  return { pid, state, pgid, startTicks };
}

export function readBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

/** The group that `leaderPid` leads (runCommand spawns the shell as a group leader). */
export function readProcessGroup(leaderPid: number): ProcessGroup | null {
  const stat = readProcessStat(leaderPid);
  const bootId = readBootId();
  if (!stat || !bootId || stat.pgid !== leaderPid) return null;
  return { pgid: leaderPid, leaderStartTicks: stat.startTicks, bootId };
}
