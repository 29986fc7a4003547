/**
 * Errors that mean "the database is not reachable right now" (restart, failover, network), as
 * opposed to errors in what was asked. Only these are worth retrying.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: string; message?: string };
  if (code && (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03'))
    return true;
  if (code && ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(code)) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(
    message ?? '',
  );
}

export interface RetryOptions {
  /** Total time to keep trying before giving up, in milliseconds. */
  budgetMs: number;
  onRetry?: (error: unknown, delayMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs `work`, retrying with exponential backoff (100 ms doubling to 5 s) while it fails with a
 * transient database error and the budget lasts. Other errors are thrown at once.
 */
export async function retryWhileUnavailable<T>(work: () => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + options.budgetMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 5000)) {
    try {
      return await work();
    } catch (error) {
      if (!isTransientDatabaseError(error) || Date.now() + delay > deadline) throw error;
      options.onRetry?.(error, delay);
      await sleep(delay);
    }
  }
}
