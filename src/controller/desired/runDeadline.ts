import { retryDelaySeconds, totalAttempts } from '../../runner/retry';

/** Seconds the runner gives an attempt between TERM and KILL, plus its report. */
const ATTEMPT_STOP_GRACE_SECONDS = 30;
/** Time for what precedes the first attempt and follows the last: image pulls, start-up, the final report. */
const RUN_OVERHEAD_SECONDS = 300;

/**
 * The Job's activeDeadlineSeconds: the longest a run can legitimately take, so that the cluster
 * kills a pod that is stuck anyway (the runner lost, a hung report). Every attempt may use its
 * whole timeout, and the retries wait their backoff. Without a timeout there is no bound: the user
 * asked for none.
 */
export function runDeadlineSeconds(
  timeout: number,
  retry: { maxAttempts: number; baseDelay: number } | undefined,
): number | undefined {
  if (timeout <= 0) return undefined;
  const attempts = totalAttempts(retry ?? null);
  let seconds = RUN_OVERHEAD_SECONDS;
  for (let attempt = 0; attempt < attempts; attempt++) {
    seconds += retryDelaySeconds(retry?.baseDelay ?? 0, attempt) + timeout + ATTEMPT_STOP_GRACE_SECONDS;
  }
  return Math.ceil(seconds);
}
