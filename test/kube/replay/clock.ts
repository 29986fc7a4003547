/**
 * The emulator's clock during a replay: the wall clock, moved forward when the recording waited
 * for one (08-cronjob: the next minute boundary) so that the replay need not wait as long.
 *
 * A held clock also stays in the second it is in (the one it starts or is moved to) however long
 * the replay takes: for recordings whose writes all fell in one second, where what the server
 * wrote shows it (managedFields are ordered by the second of their time before the manager's
 * name; a `<time>` echoed back must equal the one stored). A loaded machine crossing a second
 * boundary mid-replay would otherwise make the emulator answer as the server would have then.
 */
export class ReplayClock {
  private offsetMs = 0;
  /** The last millisecond of the second a held clock stays in. */
  private heldUntil = Infinity;

  constructor(private readonly opts: { held?: boolean; wallNow?: () => number } = {}) {
    if (opts.held) this.heldUntil = lastMillisecondOfSecond(this.wall());
  }

  private wall(): number {
    return (this.opts.wallNow ?? Date.now)();
  }

  readonly now = (): Date => new Date(Math.min(this.wall() + this.offsetMs, this.heldUntil));

  /** Moves the clock to `at` (never backwards); a held clock then stays in that second. */
  advanceTo(at: Date): void {
    const target = Math.max(this.now().getTime(), at.getTime());
    this.offsetMs = Math.max(this.offsetMs, target - this.wall());
    if (this.opts.held) this.heldUntil = lastMillisecondOfSecond(target);
  }

  /** The first instant of the next minute, plus `seconds`. */
  nextMinute(seconds = 0): Date {
    return new Date((Math.floor(this.now().getTime() / 60_000) + 1) * 60_000 + seconds * 1000);
  }
}

function lastMillisecondOfSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000 + 999;
}
