import type { MaintenanceWindow } from '../../domain/alertPolicy';
import { checkCron, nextFireTime } from '../../domain/cron';

/** A maintenance window that is open at some instant. */
export interface OpenWindow {
  window: MaintenanceWindow;
  timeZone: string;
  opensAt: Date;
  closesAt: Date;
}

/**
 * The maintenance window open at `at`, if any: one opened by a fire time of its schedule no longer
 * than its duration ago. Fire times are the scheduler's (domain/cron.ts), daylight saving included:
 * a window whose opening time a spring-forward skips opens right after the jump, one that a
 * fall-back repeats opens once. A window lasts its duration in real time, across midnight or a
 * clock change alike. Windows without a zone of their own are read in `jobTimeZone`.
 */
export function openMaintenanceWindow(
  windows: readonly MaintenanceWindow[] | undefined,
  jobTimeZone: string,
  at: Date,
): OpenWindow | null {
  for (const window of windows ?? []) {
    const check = checkCron(window.schedule);
    if (!check.valid) continue;
    const timeZone = window.timezone ?? jobTimeZone;
    const durationMs = window.durationSeconds * 1000;
    // The first opening after (at - duration): if it came by `at`, the window is open now.
    const opensAt = nextFireTime(check.fields, timeZone, new Date(at.getTime() - durationMs));
    if (opensAt.getTime() <= at.getTime()) {
      return { window, timeZone, opensAt, closesAt: new Date(opensAt.getTime() + durationMs) };
    }
  }
  return null;
}

/** Why an alert was muted, for its history row. */
export function mutedNote(open: OpenWindow): string {
  return (
    `maintenance window "${open.window.schedule}" (${open.timeZone}), ` +
    `${open.opensAt.toISOString()} to ${open.closesAt.toISOString()}`
  );
}
