/**
 * What a connection meets while the server is away or not there yet: refused, reset, no route, and
 * a host name that does not resolve yet (the Service of a StatefulSet whose pod is starting).
 */
const UNREACHABLE = [
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
];

/**
 * Errors that mean "the database is not reachable right now" (restart, failover, network), as
 * opposed to errors in what was asked. Only these are worth retrying. Besides the connection
 * exceptions (08), the server's 57P01 to 57P03 (shutting down, crashed, still starting up) and 53300
 * (too many connections: others' end frees one).
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: string; message?: string };
  if (code && (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code))) return true;
  if (code && UNREACHABLE.includes(code)) return true;
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
  /** The first wait, doubled after each failure up to 5 s; 100 ms unless given. */
  initialDelayMs?: number;
  onRetry?: (error: unknown, delayMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs `work`, retrying with exponential backoff (100 ms, or `initialDelayMs`, doubling to 5 s) while it fails with a
 * transient database error or a transaction conflict and the budget lasts. Other errors are thrown
 * at once. `work` must be a whole transaction (or a single statement), so that it can run again.
 */
export async function retryWhileUnavailable<T>(work: () => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + options.budgetMs;
  for (let delay = options.initialDelayMs ?? 100; ; delay = Math.min(delay * 2, 5000)) {
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
