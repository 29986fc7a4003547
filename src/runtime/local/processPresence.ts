import type { Logger } from '../../logging/logger';
import type { ProcessIdentity } from '../../runner/processIdentity';
import type { LocalRuntimeStore } from './localRuntimeStore';

export interface ProcessPresenceOptions {
  store: LocalRuntimeStore;
  identity: ProcessIdentity;
  heartbeatMs: number;
  logger: Logger;
  /** Called after each heartbeat, whether it was written or not; not awaited. */
  onBeat: () => void;
}

/**
 * This process as the others see it in the database: registered at start, beating every
 * `heartbeatMs` while it runs, unregistered at a clean stop. The attempts it starts name it, so a
 * process taking over tells them from a dead process's (runOwners.ts).
 */
export class ProcessPresence {
  private id: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: ProcessPresenceOptions) {}

  /** Registers; answers the id that this process's attempts name. */
  async start(): Promise<number> {
    const id = await this.options.store.registerProcess(this.options.identity);
    this.id = id;
    this.schedule();
    return id;
  }

  /** Unregisters, unless attempts it started are still open (then they are closed as this process's). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.beating;
    if (this.id === null) return;
    await this.options.store
      .forgetProcesses([this.id])
      .catch((error) => this.options.logger.warn('could not unregister this process', { err: error }));
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.beating = this.beat().finally(() => this.schedule());
    }, this.options.heartbeatMs);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    try {
      await this.options.store.beat(this.id!, this.options.identity);
    } catch (error) {
      this.options.logger.warn('could not write this process’s heartbeat', { err: error });
    }
    this.options.onBeat();
  }
}
