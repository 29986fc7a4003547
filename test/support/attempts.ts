import type { Pool } from 'pg';
import type { CommandResult } from '../../src/runner/runCommand';
import type { RunnableJob } from '../../src/runner/attemptLoop';

interface PendingAttempt {
  job: RunnableJob;
  attempt: number;
  finish(result: Partial<CommandResult>): void;
}

/**
 * An attempt runner whose attempts finish when the test says so, for scheduler tests that need a
 * run to stay active across fire times. Aborted attempts finish at once as failed with 143.
 */
export class ControlledAttempts {
  readonly pending: PendingAttempt[] = [];
  readonly started: { jobName: string; attempt: number }[] = [];

  readonly run = (job: RunnableJob, attempt: number, signal: AbortSignal): Promise<CommandResult> => {
    this.started.push({ jobName: job.name, attempt });
    return new Promise((resolve) => {
      const startedAt = new Date();
      const finish = (result: Partial<CommandResult>) =>
        resolve({
          status: 'success',
          exitCode: 0,
          stdout: '',
          stderr: '',
          startedAt,
          finishedAt: new Date(),
          ...result,
        });
      signal.addEventListener('abort', () => finish({ status: 'failed', exitCode: 143 }));
      this.pending.push({ job, attempt, finish });
    });
  };

  /** Resolves once `count` attempts have started (an attempt starts after its row is written). */
  async waitForStarted(count: number, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.started.length < count) {
      if (Date.now() > deadline)
        throw new Error(`expected ${count} attempts, ${this.started.length} started`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Finishes the oldest pending attempt. */
  finishNext(result: Partial<CommandResult> = {}): void {
    const next = this.pending.shift();
    if (!next) throw new Error('no attempt is running');
    next.finish(result);
  }
}

/** The startedAt of job `jobId`'s attempt in progress, as its row holds it. */
export async function startOfRunningAttempt(pool: Pool, jobId: number): Promise<Date> {
  const { rows } = await pool.query<{ started_at: Date }>(
    `SELECT started_at FROM executions WHERE job_id = $1 AND status = 'running'`,
    [jobId],
  );
  if (rows.length !== 1) throw new Error(`expected one attempt in progress, found ${rows.length}`);
  return rows[0]!.started_at;
}
