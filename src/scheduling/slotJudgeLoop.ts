import type { Clock } from '../domain/clock';
import type { Logger } from '../logging/logger';
import type { Leadership } from '../runtime/local/leadership';
import type { SlotJudge } from './slotJudge';

/** Arbitrary, fixed, and other than the migrations', the leader's and the evidence lock's keys. */
export const SLOT_JUDGE_LOCK_KEY = 7433_0018;

export interface SlotJudgeLoopOptions {
  judge: SlotJudge;
  /** Who judges among the replicas: the one holding the judge's lock. */
  leadership: Leadership;
  clock: Clock;
  logger: Logger;
  /** How often the judge looks; null: only when asked (tests). */
  intervalMs: number | null;
}

/**
 * Judging on a cluster, where no replica fires runs (the cluster's CronJobs do): one replica at a
 * time judges, the one holding the judge's lock, every few seconds. Locally, the leader of the
 * local runtime judges instead (it also knows which slots a catch-up is about to run).
 */
export class SlotJudgeLoop {
  private timer: NodeJS.Timeout | undefined;
  private leading = false;
  private stopped = false;
  private pass: Promise<unknown> = Promise.resolve();
  /** Ends a pass under way when the loop stops (the judge finishes the batch it is in). */
  private readonly stopping = new AbortController();

  constructor(private readonly options: SlotJudgeLoopOptions) {}

  async start(): Promise<void> {
    await this.options.leadership.start((leading) => {
      this.leading = leading;
      clearTimeout(this.timer);
      if (leading) this.schedule();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stopping.abort();
    await this.pass;
    await this.options.leadership.stop();
  }

  private schedule(): void {
    const interval = this.options.intervalMs;
    if (interval === null || this.stopped || !this.leading) return;
    this.timer = setTimeout(() => {
      this.pass = this.judgeIfLeading().finally(() => this.schedule());
    }, interval);
    this.timer.unref();
  }

  private async judgeIfLeading(): Promise<void> {
    try {
      if (await this.options.leadership.confirm())
        await this.options.judge.judge(this.options.clock.now(), this.stopping.signal);
    } catch (error) {
      this.options.logger.warn('could not judge slots; will try again', { err: error });
    }
  }
}
