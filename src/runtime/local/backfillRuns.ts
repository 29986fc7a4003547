import type { Clock } from '../../domain/clock';
import type { Job } from '../../domain/job';
import type { RunSlot } from '../../domain/slots';
import type { Logger } from '../../logging/logger';
import type { Backfill } from '../../store/slots';
import type { LocalRuntimeStore } from './localRuntimeStore';

/** A run as the runtime started it: begun once its first attempt runs, done once it is recorded. */
export interface StartedRun {
  started: Promise<void>;
  done: Promise<void>;
}

export interface BackfillRunsOptions {
  store: LocalRuntimeStore;
  clock: Clock;
  logger: Logger;
  /** Starts a run of `job` for `slot`. */
  launch(job: Job, slot: RunSlot): StartedRun;
  /** The job as it fires now; null when it is switched off or gone (the backfill then stops). */
  jobOf(jobId: number): Job | null;
  /** Whether this process may still start runs (it leads and is not stopping). */
  mayRun(): boolean;
}

/**
 * Runs the backfills that were asked for (`POST /api/jobs/:id/backfill`), each slot once, at most
 * `concurrency` of a backfill's runs at a time, oldest slot first. Progress is kept in the
 * database as runs start, so that a leader taking over resumes a backfill where it stood (a slot
 * whose backfill run was recorded already is not run again). A backfill ends when every slot's run
 * has ended, or when its job is switched off or deleted (a switched-off job must not run).
 */
export class BackfillRuns {
  private readonly running = new Map<number, Promise<void>>();

  constructor(private readonly options: BackfillRunsOptions) {}

  /** Starts the unfinished backfills this process is not running yet. */
  async sync(): Promise<void> {
    if (!this.options.mayRun()) return;
    for (const backfill of await this.options.store.backfills.listUnfinished()) {
      if (this.running.has(backfill.id) || !this.options.mayRun()) continue;
      const run = this.run(backfill)
        .catch((error) =>
          this.options.logger.error('a backfill stopped', { backfillId: backfill.id, err: error }),
        )
        .finally(() => this.running.delete(backfill.id));
      this.running.set(backfill.id, run);
    }
  }

  /** Resolves once every backfill loop started so far has stopped. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  private async run(backfill: Backfill): Promise<void> {
    const { store, logger } = this.options;
    const pending = backfill.slots.slice(backfill.started);
    const alreadyRun = await store.backfills.alreadyRun(backfill.jobId, pending);
    const queue = pending
      .map((slot, k) => ({ slot, index: backfill.started + k }))
      .filter(({ slot }) => !alreadyRun.has(slot.getTime()));
    const inFlight = new Set<Promise<void>>();
    let stopped: 'job' | 'process' | null = null;
    while (queue.length > 0) {
      while (inFlight.size >= backfill.concurrency) await Promise.race(inFlight);
      if (!this.options.mayRun()) {
        stopped = 'process';
        break;
      }
      const job = this.options.jobOf(backfill.jobId);
      if (!job) {
        stopped = 'job';
        break;
      }
      const { slot, index } = queue.shift()!;
      const run = this.options.launch(job, { scheduledAt: slot, trigger: 'backfill' });
      await run.started;
      await store.backfills.markStarted(backfill.id, index + 1);
      const done: Promise<void> = run.done.finally(() => inFlight.delete(done));
      inFlight.add(done);
    }
    await Promise.allSettled([...inFlight]);
    // A process that stops leading leaves the rest to the next leader.
    if (stopped === 'process') return;
    if (stopped === 'job') {
      logger.warn('a backfill stopped: its job was switched off or deleted', {
        backfillId: backfill.id,
        jobId: backfill.jobId,
        notRun: queue.length,
      });
    }
    await store.backfills.finish(backfill.id, this.options.clock.now());
  }
}
