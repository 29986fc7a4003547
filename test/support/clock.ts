import type { Clock } from '../../src/domain/clock';

/** A clock that moves only when the test says so. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: string | Date) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(time: string | Date): Date {
    this.current = new Date(time).getTime();
    return this.now();
  }

  advance(ms: number): Date {
    this.current += ms;
    return this.now();
  }
}
