/**
 * Lets at most `perTurn` callers through in one turn of the event loop; the others wait for the
 * following turns (`setImmediate`), in the order they came. A runtime that starts thousands of runs
 * at one fire time passes each start through it: starting a command (a fork and exec, some
 * milliseconds of this thread each) hundreds at a time in one turn held every request back for
 * seconds, where a few at a time leave the requests and timers their turns in between.
 */
export class TurnGate {
  private passedThisTurn = 0;
  private readonly waiting: (() => void)[] = [];
  private turnScheduled = false;

  constructor(private readonly perTurn: number) {}

  /** Resolves at once while this turn has room, else in a later turn. */
  pass(): Promise<void> {
    this.scheduleNextTurn();
    if (this.waiting.length === 0 && this.passedThisTurn < this.perTurn) {
      this.passedThisTurn++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private scheduleNextTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      const next = this.waiting.splice(0, this.perTurn);
      this.passedThisTurn = next.length;
      // Their callers go on in this turn, right after this callback (the promises' reactions).
      for (const resolve of next) resolve();
      if (this.waiting.length > 0 || next.length > 0) this.scheduleNextTurn();
    });
  }
}
