import type { CommandResult } from '../../../src/runner/runCommand';
import type { RunnableJob } from '../../../src/runner/attemptLoop';

/** What one attempt ends with: its status and, for the policy's duration rules, how long it took. */
export interface ScriptedOutcome {
  status: CommandResult['status'];
  durationMs?: number;
  stderr?: string;
}

/**
 * An attempt runner whose attempts end at once the way the test scripted them, job by job: the
 * next outcome queued for the job's name, or a one-second success when none is queued. Each attempt
 * "ran" for its scripted duration, ending now.
 */
export class ScriptedRuns {
  private readonly queued = new Map<string, ScriptedOutcome[]>();

  readonly run = async (job: RunnableJob): Promise<CommandResult> => {
    const outcome = this.queued.get(job.name)?.shift() ?? { status: 'success' };
    const finishedAt = new Date();
    return {
      status: outcome.status,
      exitCode: outcome.status === 'success' ? 0 : outcome.status === 'timeout' ? 137 : 1,
      stdout: 'output\n',
      stderr: outcome.stderr ?? (outcome.status === 'success' ? '' : 'it broke\n'),
      startedAt: new Date(finishedAt.getTime() - (outcome.durationMs ?? 1000)),
      finishedAt,
    };
  };

  /** Queues the outcomes of the job's next attempts, in order. */
  next(jobName: string, ...outcomes: ScriptedOutcome[]): void {
    this.queued.set(jobName, [...(this.queued.get(jobName) ?? []), ...outcomes]);
  }
}
