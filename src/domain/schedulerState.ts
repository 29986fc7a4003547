/** Whether the scheduler fires jobs: paused until resumed, or until a time. */
export interface SchedulerState {
  paused: boolean;
  until: Date | null;
}

export const RUNNING: SchedulerState = Object.freeze({ paused: false, until: null });

/** Paused with an `until` that has passed means running again, even before anyone clears it. */
export function isPausedAt(state: SchedulerState, now: Date): boolean {
  return state.paused && (state.until === null || state.until.getTime() > now.getTime());
}
