import type { Clock } from '../../domain/clock';
import type { Execution } from '../../domain/execution';
import type { Logger } from '../../logging/logger';
import type { ProcessIdentity } from '../../runner/processIdentity';
import type { ExecutionRecorder } from '../../scheduling/executionRecorder';
import { endLeftoverRuns } from '../../scheduling/leftoverRuns';
import type { LocalRuntimeStore } from './localRuntimeStore';
import { judgeOwners } from './runOwners';

export interface AbandonedRunsOptions {
  store: LocalRuntimeStore;
  recorder: ExecutionRecorder;
  clock: Clock;
  logger: Logger;
  /** How long an owner elsewhere may stay silent before its runs count as abandoned. */
  ownerTimeoutMs: number;
}

/**
 * What the leader does about attempts other processes have in progress: it ends and closes those
 * whose owner is provably gone (runOwners.ts), and remembers which jobs run elsewhere, so that it
 * starts no second run of theirs beside a live process's.
 */
export class AbandonedRuns {
  private elsewhere = new Set<number>();
  /** Owners reported as stalled, so that a long stall is logged once. */
  private stalled = new Set<number>();

  constructor(private readonly options: AbandonedRunsOptions) {}

  /**
   * Ends and records as failed the attempts of gone owners. `closeUnowned`: attempts that name no
   * owner (started before owners were recorded) are closed too, as on taking over they always were.
   */
  async close(me: { id: number; identity: ProcessIdentity }, closeUnowned: boolean): Promise<Execution[]> {
    const { store, logger } = this.options;
    // Attempts first: the owner of each registered before it started, so it is in the list read next.
    const attempts = await store.listRunningAttempts();
    const processes = await store.listProcesses(this.options.ownerTimeoutMs);
    const verdict = judgeOwners(attempts, processes, { me, closeUnowned });
    this.elsewhere = verdict.runningElsewhere;
    for (const owner of verdict.stalled) {
      if (this.stalled.has(owner.id)) continue;
      logger.warn('a process that stopped beating is alive here', {
        processId: owner.id,
        host: owner.identity.host,
        pid: owner.identity.pid,
        note: 'its runs are left to it',
      });
    }
    this.stalled = new Set(verdict.stalled.map((owner) => owner.id));
    const endings = await endLeftoverRuns(verdict.abandoned, logger);
    const closed = await this.options.recorder.closeAbandoned(this.options.clock.now(), endings);
    if (closed.length > 0) {
      logger.warn('closed runs of processes that are gone as failed', { count: closed.length });
    }
    await store.forgetProcesses(verdict.gone);
    return closed;
  }

  /** A job's run is in progress in another live process (as of the latest `close`). */
  isRunningElsewhere(jobId: number): boolean {
    return this.elsewhere.has(jobId);
  }
}
