import { checkCron, nextFireTime } from '../domain/cron';

/**
 * Next fire times by (schedule, time zone). Many jobs share a schedule and the answer only changes
 * when the cached time passes, so listing a thousand jobs costs a thousand map look-ups, not a
 * thousand cron computations.
 */
export class NextRunCache {
  private readonly entries = new Map<string, Date>();

  nextAfter(schedule: string, timeZone: string, now: Date): Date | null {
    const key = `${schedule}\u0000${timeZone}`;
    const cached = this.entries.get(key);
    if (cached && cached.getTime() > now.getTime()) return cached;
    const check = checkCron(schedule);
    if (!check.valid) return null;
    const next = nextFireTime(check.fields, timeZone, now);
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(key, next);
    return next;
  }
}
