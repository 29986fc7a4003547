import type { WebhookAddressPolicy } from './addressPolicy';
import type { DeliveryOutcome } from './deliveryOutcome';

/** Spec section 6: each webhook request times out after 10 seconds. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** How much of a receiver's answer is read (and quoted in the log when it is an error). */
const RESPONSE_READ_LIMIT = 16 * 1024;
const QUOTED_RESPONSE_CHARACTERS = 200;

export interface WebhookSenderOptions {
  policy: WebhookAddressPolicy;
  timeoutMs?: number;
  userAgent: string;
  /**
   * Test seam: where a request for `url` is really sent, e.g. Slack's host mapped to a loopback
   * receiver. The format is still chosen from the configured URL.
   */
  resolveTarget?: (url: URL) => URL;
}

/** POSTs JSON to a webhook over `fetch`, one request per call, within the timeout. */
export class WebhookSender {
  private readonly timeoutMs: number;

  constructor(private readonly options: WebhookSenderOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  }

  async send(
    url: string,
    body: unknown,
    headers: Record<string, string>,
    stop: AbortSignal,
  ): Promise<DeliveryOutcome> {
    const configured = new URL(url);
    const target = this.options.resolveTarget ? this.options.resolveTarget(configured) : configured;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = AbortSignal.any([timeout, stop]);
    try {
      const denied = await untilAborted(this.options.policy.deniedAddress(target), signal);
      if (denied) {
        return { status: 'rejected', error: `${denied} is in SERVICE_WEBHOOK_DENY_CIDRS` };
      }
      const response = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': this.options.userAgent, ...headers },
        body: JSON.stringify(body),
        // A redirect could lead past the deny list; receivers of alerts have no reason to redirect.
        redirect: 'manual',
        signal,
      });
      const answer = await readBounded(response);
      if (response.status >= 200 && response.status < 300) return { status: 'delivered' };
      const error = `HTTP ${response.status}${answer ? `: ${answer.slice(0, QUOTED_RESPONSE_CHARACTERS)}` : ''}`;
      if (response.status === 429 || response.status === 408 || response.status >= 500) {
        return { status: 'retry', error, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
      }
      if (response.status >= 300 && response.status < 400) {
        return { status: 'rejected', error: `${error} (redirects are not followed)` };
      }
      return { status: 'rejected', error };
    } catch (error) {
      if (stop.aborted) return { status: 'interrupted' };
      if (timeout.aborted) return { status: 'retry', error: `timed out after ${this.timeoutMs} ms` };
      return { status: 'retry', error: describeFetchError(error) };
    }
  }
}

/** Name resolution has no signal of its own: the request's timeout covers it this way. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size >= RESPONSE_READ_LIMIT) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED, a DNS error) is in `cause`. */
function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ''}`;
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}
