import { openMaintenanceWindow } from '../../src/alerts/policy/maintenance';

const at = (iso: string) => new Date(iso);
const opensAt = (windows: Parameters<typeof openMaintenanceWindow>[0], instant: string, zone = 'UTC') =>
  openMaintenanceWindow(windows, zone, at(instant))?.opensAt.toISOString() ?? null;

/**
 * Maintenance windows open at their schedule's fire times, read as the scheduler reads them
 * (domain/cron.ts, Vixie cron's daylight saving rules), and last their duration in real time.
 * Europe/Berlin: spring forward on 2026-03-29 at 01:00 UTC (02:00 → 03:00), fall back on 2026-10-25
 * at 01:00 UTC (03:00 → 02:00).
 */
describe('maintenance windows', () => {
  const lateNight = [{ schedule: '30 23 * * *', durationSeconds: 2 * 3600, timezone: 'Europe/Berlin' }];

  it('covers midnight on the night the clocks spring forward', () => {
    // Opens at 23:30 CET (22:30 UTC), lasts two real hours: until 01:30 CEST... at 00:30 UTC.
    expect(opensAt(lateNight, '2026-03-28T22:29:59Z')).toBeNull();
    expect(opensAt(lateNight, '2026-03-28T22:30:00Z')).toBe('2026-03-28T22:30:00.000Z');
    expect(opensAt(lateNight, '2026-03-28T23:15:00Z')).toBe('2026-03-28T22:30:00.000Z'); // 00:15 local
    expect(opensAt(lateNight, '2026-03-29T00:29:59Z')).toBe('2026-03-28T22:30:00.000Z');
    expect(opensAt(lateNight, '2026-03-29T00:30:00Z')).toBeNull();
    // The next night it opens at 23:30 CEST, an hour earlier in UTC.
    expect(opensAt(lateNight, '2026-03-29T21:30:00Z')).toBe('2026-03-29T21:30:00.000Z');
  });

  it('covers midnight on the night the clocks fall back', () => {
    expect(opensAt(lateNight, '2026-10-24T21:29:59Z')).toBeNull();
    expect(opensAt(lateNight, '2026-10-24T22:10:00Z')).toBe('2026-10-24T21:30:00.000Z'); // 00:10 local
    expect(opensAt(lateNight, '2026-10-24T23:30:00Z')).toBeNull();
  });

  it('opens right after the jump when its opening time is skipped, and once when it is repeated', () => {
    const skipped = [{ schedule: '30 2 * * *', durationSeconds: 3600, timezone: 'Europe/Berlin' }];
    // 02:30 does not exist on 2026-03-29: the window opens at 03:00 CEST (01:00 UTC).
    expect(opensAt(skipped, '2026-03-29T00:59:59Z')).toBeNull();
    expect(opensAt(skipped, '2026-03-29T01:30:00Z')).toBe('2026-03-29T01:00:00.000Z');
    expect(opensAt(skipped, '2026-03-29T02:00:00Z')).toBeNull();

    const repeated = [{ schedule: '30 2 * * *', durationSeconds: 1800, timezone: 'Europe/Berlin' }];
    // 02:30 comes twice on 2026-10-25: the window opens at the first (00:30 UTC) only.
    expect(opensAt(repeated, '2026-10-25T00:45:00Z')).toBe('2026-10-25T00:30:00.000Z');
    expect(opensAt(repeated, '2026-10-25T01:45:00Z')).toBeNull();
  });

  it('reads a window without a zone of its own in the job’s zone, and answers the first open one', () => {
    const windows = [
      { schedule: '0 9 * * 1', durationSeconds: 600 },
      { schedule: '0 22 * * *', durationSeconds: 3600 },
    ];
    expect(opensAt(windows, '2026-03-10T21:30:00Z', 'America/New_York')).toBeNull();
    expect(opensAt(windows, '2026-03-11T02:30:00Z', 'America/New_York')).toBe('2026-03-11T02:00:00.000Z');
    expect(opensAt(windows, '2026-03-09T13:05:00Z', 'America/New_York')).toBe('2026-03-09T13:00:00.000Z');
    expect(openMaintenanceWindow(undefined, 'UTC', at('2026-03-10T00:00:00Z'))).toBeNull();
  });
});
