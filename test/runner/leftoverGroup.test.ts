import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endLeftoverGroup } from '../../src/runner/leftoverGroup';
import { type ProcessGroup, readProcessGroup } from '../../src/runner/processGroup';
import { endsWithin, isAlive, killQuietly, pidFrom } from '../support/processes';

/**
 * A process group left behind by a "crashed" service: a shell in a group of its own, as runCommand
 * starts it, with a background child. Returns the group as it would have been recorded.
 */
async function leftover(script: string): Promise<{ group: ProcessGroup; shell: number; child: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'crondeck-leftover-'));
  const shell = spawn('/bin/sh', ['-c', `sleep 30 & echo $! > ${dir}/child.pid; ${script}`], {
    detached: true,
    stdio: 'ignore',
  });
  const group = readProcessGroup(shell.pid!)!;
  const child = await pidFrom(join(dir, 'child.pid'));
  started.push(shell.pid!, child);
  return { group, shell: shell.pid!, child };
}
const started: number[] = [];

afterEach(() => {
  for (const pid of started.splice(0)) killQuietly(pid);
});

describe('endLeftoverGroup', () => {
  it('ends a group whose leader still matches with TERM', async () => {
    const { group, shell, child } = await leftover('wait');
    expect(await endLeftoverGroup(group, 2000)).toEqual({ kind: 'ended', signal: 'SIGTERM', exitCode: 143 });
    expect(await endsWithin(shell, 2000)).toBe(true);
    expect(await endsWithin(child, 2000)).toBe(true);
  });

  it('ends the members that remain after their leader exited', async () => {
    const { group, shell, child } = await leftover('exit 0');
    expect(await endsWithin(shell, 2000)).toBe(true);
    expect(isAlive(child)).toBe(true);
    expect(await endLeftoverGroup(group, 2000)).toMatchObject({ kind: 'ended', signal: 'SIGTERM' });
    expect(await endsWithin(child, 2000)).toBe(true);
  });

  it('kills with KILL what ignores TERM, after the grace', async () => {
    // An ignored signal stays ignored across exec: the sleeps ignore TERM as well.
    const { group, shell } = await leftover("trap '' TERM; while :; do sleep 0.1; done");
    expect(await endLeftoverGroup(group, 300)).toEqual({ kind: 'ended', signal: 'SIGKILL', exitCode: 137 });
    expect(await endsWithin(shell, 2000)).toBe(true);
  });

  it('signals nothing when the leader started at another time (its id was reused)', async () => {
    const { group, shell, child } = await leftover('wait');
    const other = { ...group, leaderStartTicks: String(BigInt(group.leaderStartTicks) - 1n) };
    expect(await endLeftoverGroup(other, 300)).toEqual({ kind: 'gone', reason: 'finished' });
    expect([isAlive(shell), isAlive(child)]).toEqual([true, true]);
  });

  it('signals nothing when the group was recorded during another boot', async () => {
    const { group, shell, child } = await leftover('wait');
    expect(await endLeftoverGroup({ ...group, bootId: 'another-boot' }, 300)).toEqual({
      kind: 'gone',
      reason: 'rebooted',
    });
    expect([isAlive(shell), isAlive(child)]).toEqual([true, true]);
  });

  it('reports a group that has finished as gone', async () => {
    const { group, shell, child } = await leftover('exit 0');
    killQuietly(child);
    expect(await endsWithin(shell, 2000)).toBe(true);
    expect(await endsWithin(child, 2000)).toBe(true);
    expect(await endLeftoverGroup(group, 300)).toEqual({ kind: 'gone', reason: 'finished' });
  });
});
