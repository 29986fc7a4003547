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

/**
 * A serialization failure or a deadlock: Postgres rolled the transaction back because of another
 * transaction, not because of what was asked, and running it again is the documented answer (a
 * run finishing while its job is deleted can meet the deletion's cascade this way).
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

export interface RetryOptions {
  /** Total time to keep trying before giving up, in milliseconds. */
  budgetMs: number;
  onRetry?: (error: unknown, delayMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs `work`, retrying with exponential backoff (100 ms doubling to 5 s) while it fails with a
 * transient database error or a transaction conflict and the budget lasts. Other errors are thrown
 * at once. `work` must be a whole transaction (or a single statement), so that it can run again.
 */
export async function retryWhileUnavailable<T>(work: () => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + options.budgetMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 5000)) {
    try {
      return await work();
    } catch (error) {
      const retryable = isTransientDatabaseError(error) || isTransactionConflict(error);
      if (!retryable || Date.now() + delay > deadline) throw error;
      options.onRetry?.(error, delay);
      await sleep(delay);
    }
  }
}
