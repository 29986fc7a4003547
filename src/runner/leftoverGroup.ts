import { readdirSync } from 'node:fs';
import { type ProcessGroup, type ProcessStat, readBootId, readProcessStat } from './processGroup';

/** What became of the processes a crashed service left running for one attempt. */
export type LeftoverOutcome =
  | { kind: 'ended'; signal: 'SIGTERM' | 'SIGKILL'; exitCode: number }
  /** Nothing of the group was left (it finished while the service was down, or the machine restarted). */
  | { kind: 'gone'; reason: 'finished' | 'rebooted' }
  /** No /proc to check the group against: nothing was signalled. */
  | { kind: 'unknown' };

const POLL_MS = 50;

/**
 * Ends what is left of a process group recorded for a run before a crash: TERM, then KILL after
 * `graceMs`, as a timeout would. A group id can be reused by an unrelated process once the group
 * is empty, so the group is signalled only when it is provably the same one:
 * - same boot (ids mean nothing across boots);
 * - its leader, when still there (even as a zombie), started at the recorded clock tick;
 * - without a leader, its remaining members started no earlier than the recorded leader (the
 *   kernel does not hand out an id that is still some group's id, so while members remain the
 *   group has not been recycled).
 */
export async function endLeftoverGroup(group: ProcessGroup, graceMs: number): Promise<LeftoverOutcome> {
  const bootId = readBootId();
  if (bootId === null) return { kind: 'unknown' };
  if (bootId !== group.bootId) return { kind: 'gone', reason: 'rebooted' };
  if (liveMembers(group).length === 0) return { kind: 'gone', reason: 'finished' };

  signal(group.pgid, 'SIGTERM');
  if (await emptiedWithin(group, graceMs)) return { kind: 'ended', signal: 'SIGTERM', exitCode: 143 };
  if (liveMembers(group).length > 0) signal(group.pgid, 'SIGKILL');
  await emptiedWithin(group, graceMs);
  return { kind: 'ended', signal: 'SIGKILL', exitCode: 137 };
}

/** Members of the group that are still running (zombies are done), or none if it is not ours. */
function liveMembers(group: ProcessGroup): ProcessStat[] {
  const leader = readProcessStat(group.pgid);
  if (leader && leader.pgid === group.pgid && leader.startTicks !== group.leaderStartTicks) return [];
  const recordedStart = BigInt(group.leaderStartTicks);
  const members: ProcessStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const stat = readProcessStat(Number(entry));
    if (!stat || stat.pgid !== group.pgid || stat.state === 'Z') continue;
    if (BigInt(stat.startTicks) < recordedStart) continue;
    members.push(stat);
  }
  return members;
}

async function emptiedWithin(group: ProcessGroup, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (liveMembers(group).length === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function signal(pgid: number, name: NodeJS.Signals): void {
  try {
    process.kill(-pgid, name);
  } catch {
    // The group emptied in the meantime.
  }
}
