import type { ProcessIdentity } from '../../src/runner/processIdentity';
import { judgeOwners } from '../../src/runtime/local/runOwners';
import type { RunningAttemptOwnership } from '../../src/store/runningAttempts';
import type { RegisteredProcess } from '../../src/store/serviceProcesses';

const HERE: ProcessIdentity = {
  host: 'a',
  bootId: 'boot-1',
  pidNamespace: 'pid:[1]',
  pid: 100,
  startTicks: '500',
};
const me = { id: 1, identity: HERE };
const group = { pgid: 4242, leaderStartTicks: '900', bootId: 'boot-1' };

const registered = (id: number, identity: Partial<ProcessIdentity>, silent = false): RegisteredProcess => ({
  id,
  identity: { ...HERE, ...identity },
  silent,
});
const attempt = (
  executionId: number,
  ownerId: number | null,
  jobId = executionId,
): RunningAttemptOwnership => ({
  executionId,
  jobId,
  ownerId,
  group,
});

/** Processes "running" on this machine, by PID. */
const running =
  (...pids: number[]) =>
  (identity: ProcessIdentity) =>
    pids.includes(identity.pid);

describe('whose runs may be closed', () => {
  it('never this process’s own', () => {
    const verdict = judgeOwners([attempt(10, 1)], [registered(1, {}, true)], {
      me,
      closeUnowned: true,
      isRunning: running(),
    });
    expect(verdict).toEqual({ abandoned: [], runningElsewhere: new Set(), stalled: [], gone: [] });
  });

  it('on this machine: gone only when its PID no longer runs it, however long it has been silent', () => {
    const stalled = registered(2, { pid: 200 }, true);
    const dead = registered(3, { pid: 300 }, false);
    const verdict = judgeOwners([attempt(20, 2), attempt(30, 3)], [stalled, dead], {
      me,
      closeUnowned: false,
      isRunning: running(200),
    });
    expect(verdict.abandoned).toEqual([{ executionId: 30, group, reachable: true }]);
    expect(verdict.runningElsewhere).toEqual(new Set([20]));
    expect(verdict.stalled).toEqual([stalled]);
    expect(verdict.gone).toEqual([3]);
  });

  it('elsewhere (another boot, another PID namespace): gone only once its heartbeat is silent', () => {
    const otherMachine = registered(4, { host: 'b', bootId: 'boot-2', pid: 200 }, true);
    const otherContainer = registered(5, { host: 'c', pidNamespace: 'pid:[2]', pid: 300 }, false);
    // Their PIDs run here, and mean nothing: they are other processes'.
    const verdict = judgeOwners([attempt(40, 4), attempt(50, 5)], [otherMachine, otherContainer], {
      me,
      closeUnowned: false,
      isRunning: running(200, 300),
    });
    expect(verdict.abandoned).toEqual([{ executionId: 40, group, reachable: false }]);
    expect(verdict.runningElsewhere).toEqual(new Set([50]));
    expect(verdict.stalled).toEqual([]);
    expect(verdict.gone).toEqual([4]);
  });

  it('gone, out of reach, when its registration is missing', () => {
    const verdict = judgeOwners([attempt(60, 6)], [], { me, closeUnowned: false, isRunning: running(100) });
    expect(verdict.abandoned).toEqual([{ executionId: 60, group, reachable: false }]);
  });

  it('attempts that name no owner (before migration 013) only on taking over', () => {
    const unowned = [attempt(70, null)];
    expect(judgeOwners(unowned, [], { me, closeUnowned: true, isRunning: running() }).abandoned).toEqual([
      { executionId: 70, group, reachable: true },
    ]);
    const later = judgeOwners(unowned, [], { me, closeUnowned: false, isRunning: running() });
    expect(later.abandoned).toEqual([]);
    expect(later.runningElsewhere).toEqual(new Set([70]));
  });

  it('does not look PIDs up where /proc could not say which boot or namespace this is', () => {
    const blind = { id: 1, identity: { ...HERE, bootId: null, pidNamespace: null } };
    const silent = registered(7, { bootId: null, pidNamespace: null, pid: 700 }, true);
    const verdict = judgeOwners([attempt(80, 7)], [silent], {
      me: blind,
      closeUnowned: false,
      isRunning: running(700),
    });
    expect(verdict.abandoned).toEqual([{ executionId: 80, group, reachable: false }]);
  });
});
