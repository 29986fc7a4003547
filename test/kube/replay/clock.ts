/**
 * The emulator's clock during a replay: the wall clock, moved forward when the recording waited
 * for one (08-cronjob: the next minute boundary) so that the replay need not wait as long.
 */
export class ReplayClock {
  private offsetMs = 0;

  readonly now = (): Date => new Date(Date.now() + this.offsetMs);

  /** Moves the clock to `at` (never backwards). */
  advanceTo(at: Date): void {
    this.offsetMs = Math.max(this.offsetMs, at.getTime() - Date.now());
  }

  /** The first instant of the next minute, plus `seconds`. */
  nextMinute(seconds = 0): Date {
    return new Date((Math.floor(this.now().getTime() / 60_000) + 1) * 60_000 + seconds * 1000);
  }
}
