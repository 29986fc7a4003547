/** Longest wait between two attempts, whatever the base delay. */
const MAX_RETRY_DELAY_SECONDS = 300;

/**
 * Seconds to wait before attempt `attempt` (0-based; attempt 0 starts at once): the base delay
 * doubled for each earlier retry, capped at five minutes.
 */
export function retryDelaySeconds(baseDelaySeconds: number, attempt: number): number {
  if (attempt <= 0) return 0;
  return Math.min(MAX_RETRY_DELAY_SECONDS, baseDelaySeconds * 2 ** (attempt - 1));
}

/** A run makes one attempt plus up to `maxAttempts` retries. */
export function totalAttempts(retry: { maxAttempts: number } | null): number {
  return 1 + (retry?.maxAttempts ?? 0);
}
