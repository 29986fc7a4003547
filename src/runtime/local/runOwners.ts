import { isRunningHere, type ProcessIdentity, seenFromHere } from '../../runner/processIdentity';
import type { AbandonedAttempt } from '../../scheduling/leftoverRuns';
import type { RunningAttemptOwnership } from '../../store/runningAttempts';
import type { RegisteredProcess } from '../../store/serviceProcesses';

export interface OwnersVerdict {
  /** Attempts whose owner is provably gone: to be ended and closed. */
  abandoned: AbandonedAttempt[];
  /** Jobs with an attempt in progress in another live process. */
  runningElsewhere: Set<number>;
  /** Processes that stopped beating but run here all the same (stopped, or starved of CPU). */
  stalled: RegisteredProcess[];
  /** Registered processes that are provably gone. */
  gone: number[];
}

export interface Judge {
  /** This process: its registration and what tells it apart. */
  me: { id: number; identity: ProcessIdentity };
  /**
   * Whether attempts started before owners were recorded (migration 013) count as abandoned: only
   * on taking over, as before owners were recorded, never while another process may be leading.
   */
  closeUnowned: boolean;
  /** Looks a process up on this machine; /proc by default. */
  isRunning?: (identity: ProcessIdentity) => boolean;
}

/**
 * Who of the processes owning attempts in progress is provably gone. A run is ended, or recorded
 * as interrupted, only then:
 * - an owner that this process can look up (same boot, same PID namespace) is gone when its PID
 *   no longer runs the process that registered (its start time differs, or it is a zombie); one
 *   that is stalled (SIGSTOP, a frozen VM) is alive, however long its heartbeat has been silent;
 * - an owner elsewhere is gone once its heartbeat has been silent for the timeout;
 * - an owner whose registration is missing is gone: it unregisters only once its runs are recorded.
 */
export function judgeOwners(
  attempts: RunningAttemptOwnership[],
  processes: RegisteredProcess[],
  judge: Judge,
): OwnersVerdict {
  const isRunning = judge.isRunning ?? isRunningHere;
  const alive = new Map<number, boolean>();
  const stalled: RegisteredProcess[] = [];
  const gone: number[] = [];
  for (const registered of processes) {
    const here = seenFromHere(registered.identity, judge.me.identity);
    const living =
      registered.id === judge.me.id || (here ? isRunning(registered.identity) : !registered.silent);
    alive.set(registered.id, living);
    if (!living) gone.push(registered.id);
    else if (registered.silent && registered.id !== judge.me.id) stalled.push(registered);
  }
  const byId = new Map(processes.map((registered) => [registered.id, registered]));

  const abandoned: AbandonedAttempt[] = [];
  const runningElsewhere = new Set<number>();
  for (const attempt of attempts) {
    const { executionId, group, ownerId } = attempt;
    if (ownerId === null) {
      // Started by a version that recorded no owner: what was done before, on taking over only.
      if (judge.closeUnowned) abandoned.push({ executionId, group, reachable: true });
      else runningElsewhere.add(attempt.jobId);
      continue;
    }
    const owner = byId.get(ownerId);
    if (owner && alive.get(ownerId)) {
      if (ownerId !== judge.me.id) runningElsewhere.add(attempt.jobId);
      continue;
    }
    // A missing registration says nothing about where the owner ran: its processes stay untouched.
    const reachable = owner !== undefined && seenFromHere(owner.identity, judge.me.identity);
    abandoned.push({ executionId, group, reachable });
  }
  return { abandoned, runningElsewhere, stalled, gone };
}
