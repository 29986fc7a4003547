import { DENIED_ADDRESS, type WebhookAddressPolicy } from './addressPolicy';
import type { DeliveryOutcome } from './deliveryOutcome';
import { guardedAgents, post } from './httpPost';

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

/** POSTs JSON to a webhook, one request per call, within the timeout. */
export class WebhookSender {
  private readonly timeoutMs: number;
  /**
   * Connections of this sender's own: each was made to addresses its deny check saw, and they
   * close with the sender (the process-wide agent would keep them past it).
   */
  private readonly agents: ReturnType<typeof guardedAgents>;

  constructor(private readonly options: WebhookSenderOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.agents = guardedAgents((remoteAddress) => {
      const denied = options.policy.deniedRemote(remoteAddress);
      return denied
        ? Object.assign(new Error(`connected to ${denied}, which is in SERVICE_WEBHOOK_DENY_CIDRS`), {
            code: DENIED_ADDRESS,
          })
        : null;
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /**
   * `sign`, when given, makes the headers of a signed delivery from the exact body sent; it is
   * called just before the request, so a signature's timestamp is this attempt's.
   */
  async send(
    url: string,
    body: unknown,
    headers: Record<string, string>,
    stop: AbortSignal,
    sign?: (body: string) => Record<string, string>,
  ): Promise<DeliveryOutcome> {
    const configured = new URL(url);
    const target = this.options.resolveTarget ? this.options.resolveTarget(configured) : configured;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = AbortSignal.any([timeout, stop]);
    const literal = this.options.policy.deniedLiteral(target);
    if (literal) return { status: 'rejected', error: `${literal} is in SERVICE_WEBHOOK_DENY_CIDRS` };
    const text = JSON.stringify(body);
    let signature: Record<string, string> = {};
    try {
      if (sign) signature = sign(text);
    } catch (error) {
      return { status: 'rejected', error: (error as Error).message };
    }
    try {
      const answer = await post(target, text, {
        headers: {
          'content-type': 'application/json',
          'user-agent': this.options.userAgent,
          ...headers,
          ...signature,
        },
        signal,
        // Host names are checked against the deny list as the connection resolves them.
        lookup: this.options.policy.lookup,
        readLimit: RESPONSE_READ_LIMIT,
        agents: this.agents,
      });
      if (answer.status >= 200 && answer.status < 300) return { status: 'delivered' };
      const quoted = answer.body.slice(0, QUOTED_RESPONSE_CHARACTERS);
      const error = `HTTP ${answer.status}${quoted ? `: ${quoted}` : ''}`;
      if (answer.status === 429 || answer.status === 408 || answer.status >= 500) {
        return {
          status: 'retry',
          error,
          retryAfterMs: retryAfterMs(headerValue(answer.headers['retry-after'])),
        };
      }
      if (answer.status >= 300 && answer.status < 400) {
        // A redirect could lead past the deny list; receivers of alerts have no reason to redirect.
        return { status: 'rejected', error: `${error} (redirects are not followed)` };
      }
      return { status: 'rejected', error };
    } catch (error) {
      if (stop.aborted) return { status: 'interrupted' };
      if (timeout.aborted) return { status: 'retry', error: `timed out after ${this.timeoutMs} ms` };
      const failure = error as { code?: string; message?: string };
      if (failure.code === DENIED_ADDRESS) {
        return { status: 'rejected', error: failure.message ?? DENIED_ADDRESS };
      }
      return { status: 'retry', error: describeNetworkError(error) };
    }
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9" rather than a bare message. */
function describeNetworkError(error: unknown): string {
  const failure = error as { code?: string; message?: string };
  const message = failure.message ?? String(error);
  return failure.code && !message.includes(failure.code) ? `${failure.code}: ${message}` : message;
}
