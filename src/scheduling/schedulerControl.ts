import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import { invalid } from '../domain/errors';
import type { Runtime } from '../runtime/runtime';
import { readSchedulerState, type SchedulerState, writeSchedulerState } from '../store/scheduler';

/** Paused with an `until` that has passed means running again: the resume needs no timer. */
export function isPausedAt(state: SchedulerState, now: Date): boolean {
  return state.paused && (state.until === null || state.until.getTime() > now.getTime());
}

/** Pausing and resuming every job at once. The switch lives in the database, so it survives restarts. */
export class SchedulerControl {
  constructor(
    private readonly pool: Pool,
    private readonly runtime: Runtime,
    private readonly clock: Clock,
  ) {}

  /** The effective state; a pause whose `until` has passed is cleared on the way. */
  async status(): Promise<SchedulerState> {
    const stored = await readSchedulerState(this.pool);
    if (stored.paused && !isPausedAt(stored, this.clock.now())) {
      const running: SchedulerState = { paused: false, until: null };
      await writeSchedulerState(this.pool, running);
      return running;
    }
    return stored;
  }

  async pause(until: Date | null): Promise<SchedulerState> {
    if (until && until.getTime() <= this.clock.now().getTime()) {
      throw invalid('until: must be in the future');
    }
    const state: SchedulerState = { paused: true, until };
    await writeSchedulerState(this.pool, state);
    this.runtime.schedulerChanged(state);
    return state;
  }

  async resume(): Promise<SchedulerState> {
    const state: SchedulerState = { paused: false, until: null };
    await writeSchedulerState(this.pool, state);
    this.runtime.schedulerChanged(state);
    return state;
  }
}
