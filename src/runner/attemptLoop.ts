import type { ProcessGroup } from './processGroup';
import { retryDelaySeconds, totalAttempts } from './retry';
import type { CommandResult } from './runCommand';

/**
 * Where a run's attempts are recorded: directly in the database by the local runtime, over HTTP
 * to the service from a pod (`crondeck run`). `started` is called as an attempt begins and gives
 * back whatever `finished` needs to close it (the row id locally).
 */
export interface AttemptRecorder<Handle = unknown> {
  started(attempt: number, startedAt: Date): Promise<Handle>;
  /** The attempt's processes, as soon as they exist (a later start can end them after a crash). */
  processGroup?(handle: Handle, group: ProcessGroup): void;
  finished(handle: Handle, attempt: number, result: CommandResult, final: boolean): Promise<void>;
}

/** Runs one attempt of the command; aborting `signal` stops it like a timeout (but it fails). */
export type AttemptExecutor = (
  attempt: number,
  signal: AbortSignal,
  onSpawn: (group: ProcessGroup | null) => void,
) => Promise<CommandResult>;

export interface RunOptions<Handle> {
  retry: { maxAttempts: number; baseDelay: number } | null;
  execute: AttemptExecutor;
  recorder: AttemptRecorder<Handle>;
  /** Stops the run: the attempt in progress is killed and recorded, no retry follows. */
  signal: AbortSignal;
  /** Waits between attempts; resolves early when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Appended to stderr of an attempt that `signal` stopped (why it was stopped). */
  abortNote?: string;
}

/**
 * One run of a job: the first attempt and its retries (DESIGN.md: 1 + maxAttempts attempts at
 * most, attempt n waits baseDelay × 2^(n-1) seconds, capped at 5 minutes; a timeout is not
 * retried), each recorded as it starts and as it finishes. The same loop runs in the service
 * (local runtime) and in a pod (`crondeck run`). Returns the final attempt's result, or null when
 * the run was stopped between attempts.
 */
export async function runAttempts<Handle>(options: RunOptions<Handle>): Promise<CommandResult | null> {
  const { recorder, signal } = options;
  const sleep = options.sleep ?? abortableSleep;
  const attempts = totalAttempts(options.retry);
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) {
      await sleep(retryDelaySeconds(options.retry?.baseDelay ?? 0, attempt) * 1000, signal);
      if (signal.aborted) return null;
    }
    const handle = await recorder.started(attempt, new Date());
    const result = await options.execute(attempt, signal, (group) => {
      if (group) recorder.processGroup?.(handle, group);
    });
    // A timeout is not retried, and neither is a run that was stopped.
    const final = result.status !== 'failed' || attempt === attempts - 1 || signal.aborted;
    const stopped =
      signal.aborted && options.abortNote ? { ...result, stderr: result.stderr + options.abortNote } : result;
    await recorder.finished(handle, attempt, stopped, final);
    if (final) return stopped;
  }
  return null;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
