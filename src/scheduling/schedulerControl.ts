import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import { invalid } from '../domain/errors';
import { isPausedAt, RUNNING, type SchedulerState } from '../domain/schedulerState';
import type { Runtime } from '../runtime/runtime';
import { withTransaction } from '../store/database';
import { endPauseAt, readSchedulerState, writeSchedulerState } from '../store/scheduler';
import { holdScheduler } from '../store/slots';

/**
 * Pausing and resuming every job at once. The switch lives in the database, so it survives
 * restarts. A pause with `until` is ended at `until` by the runtime that fires jobs.
 */
export class SchedulerControl {
  constructor(
    private readonly pool: Pool,
    private readonly runtime: Runtime,
    private readonly clock: Clock,
  ) {}

  /** The effective state; a pause whose `until` has passed reads as running (and is cleared). */
  async status(): Promise<SchedulerState> {
    const stored = await readSchedulerState(this.pool);
    if (stored.paused && stored.until && !isPausedAt(stored, this.clock.now())) {
      await endPauseAt(this.pool, stored.until);
      return RUNNING;
    }
    return stored;
  }

  async pause(until: Date | null): Promise<SchedulerState> {
    if (until && until.getTime() <= this.clock.now().getTime()) {
      throw invalid('until: must be in the future');
    }
    return this.change({ paused: true, until });
  }

  async resume(): Promise<SchedulerState> {
    return this.change(RUNNING);
  }

  /** Stored and told to the runtime together: a runtime that refuses leaves the stored state as it was. */
  private async change(state: SchedulerState): Promise<SchedulerState> {
    await withTransaction(this.pool, async (tx) => {
      await writeSchedulerState(tx, state);
      // The slot ledger judges the slots of a pause `paused` (docs/slots.md).
      await holdScheduler(tx, state, this.clock.now());
      await this.runtime.schedulerChanged(state);
    });
    return state;
  }
}
