/** How a runner POSTs to the service: with the job's token, retried while the service cannot answer. */
export interface ServicePostOptions {
  /** The job's report token (from the Secret the controller owns). */
  token: string;
  /** How long to keep trying while the service is unreachable or busy. */
  budgetMs: number;
  onRetry?: (reason: string, delayMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 30_000;
/** Each try gets this long to be answered: a hung connection must not eat the whole budget. */
const REQUEST_TIMEOUT_MS = 15_000;

/** The service's answer to a POST that it took or refused for what it is. */
export interface ServiceAnswer {
  status: number;
  text: string;
}

/**
 * POSTs `body` (JSON) to `url`, again with backoff while the service cannot take it (no connection,
 * a timeout, 408, 429, 5xx), and resolves to the first answer that says something about the request
 * itself (2xx, or a 4xx refusal). Rejects once the budget is spent, naming the last reason.
 */
export async function postUntilAnswered(
  url: string,
  body: string,
  options: ServicePostOptions,
): Promise<ServiceAnswer> {
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + options.budgetMs;
  for (let delay = RETRY_FIRST_MS; ; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
    let reason: string;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      if (!isTransient(response.status)) return { status: response.status, text };
      reason = `the service answered ${response.status}`;
    } catch (error) {
      reason = `the service is unreachable: ${describe(error)}`;
    }
    if (Date.now() + delay > deadline) throw new Error(reason);
    options.onRetry?.(reason, delay);
    await sleep(delay);
  }
}

function isTransient(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}
