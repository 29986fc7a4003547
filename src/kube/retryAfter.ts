import {
  type ApiConstructor,
  type ApiType,
  createConfiguration,
  IsomorphicFetchHttpLibrary,
  type KubeConfig,
  type RequestContext,
  ResponseContext,
  ServerConfiguration,
  wrapHttpLibrary,
} from '@kubernetes/client-node';

export interface RetryAfterPolicy {
  /** Retries of one request at most; then the server's last answer is the caller's. */
  maxRetries: number;
  /** No single wait is longer than this, whatever the server asks. */
  maxDelayMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told of each retry before its wait (for a log line). */
  onRetry?: (retry: {
    method: string;
    url: string;
    status: number;
    delayMs: number;
    attempt: number;
  }) => void;
}

/** What client-go allows (10 retries); a CRD's storage initialises within seconds. */
const DEFAULT_POLICY: RetryAfterPolicy = {
  maxRetries: 10,
  maxDelayMs: 10_000,
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    }),
};

/** When 429 comes without a hint: the shortest wait the API server ever asks for. */
const DEFAULT_TOO_MANY_REQUESTS_DELAY_MS = 1000;

/**
 * How long the API server asked the client to wait before sending the request again, or null when
 * its answer is not one to retry. A real kube-apiserver answers 429 with `Retry-After` (and
 * `details.retryAfterSeconds` in the Status body) when it sheds load or while the storage of a new
 * CRD initialises ("storage is (re)initializing"), and 503/504 with the same hint when the
 * request was not served but may be sent again (e.g. a list from a resourceVersion it has not
 * reached yet). A 503 or 504 without a hint is an answer, not a request to wait.
 */
function retryDelayMs(status: number, headers: Record<string, string>, body: string): number | null {
  if (![429, 503, 504].includes(status)) return null;
  const hintSeconds = retryAfterHeaderSeconds(headers['retry-after']) ?? retryAfterSecondsOf(body);
  if (hintSeconds !== null) return hintSeconds * 1000;
  return status === 429 ? DEFAULT_TOO_MANY_REQUESTS_DELAY_MS : null;
}

function retryAfterHeaderSeconds(value: string | undefined): number | null {
  if (value === undefined) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function retryAfterSecondsOf(body: string): number | null {
  try {
    const seconds = (JSON.parse(body) as { details?: { retryAfterSeconds?: unknown } }).details
      ?.retryAfterSeconds;
    return typeof seconds === 'number' && seconds > 0 ? seconds : null;
  } catch {
    return null;
  }
}

/**
 * client-node's HTTP library, made to wait and send a request again when the API server asks it
 * to (retryDelayMs), a bounded number of times. Every request body is a string, so it can be sent
 * again as it is.
 */
function retryingHttpLibrary(policy: RetryAfterPolicy) {
  const http = new IsomorphicFetchHttpLibrary();
  return wrapHttpLibrary({
    async send(request: RequestContext): Promise<ResponseContext> {
      for (let attempt = 1; ; attempt++) {
        const response = await http.send(request).toPromise();
        if (![429, 503, 504].includes(response.httpStatusCode) || attempt > policy.maxRetries)
          return response;
        // Read once to look for retryAfterSeconds; the caller gets a body that reads the same text.
        const text = await response.body.text();
        const delayMs = retryDelayMs(response.httpStatusCode, response.headers, text);
        const signal = request.getSignal();
        if (delayMs === null || signal?.aborted) return withBody(response, text);
        const wait = Math.min(delayMs, policy.maxDelayMs);
        policy.onRetry?.({
          method: request.getHttpMethod(),
          url: request.getUrl(),
          status: response.httpStatusCode,
          delayMs: wait,
          attempt,
        });
        await policy.sleep(wait, signal);
      }
    },
  });
}

function withBody(response: ResponseContext, text: string): ResponseContext {
  return new ResponseContext(response.httpStatusCode, response.headers, {
    text: () => Promise.resolve(text),
    binary: () => Promise.resolve(Buffer.from(text, 'utf8')),
  });
}

/**
 * An API client of `kubeConfig`'s cluster (as `kubeConfig.makeApiClient(Api)` makes it) whose
 * every request waits and is sent again when the API server asks (429, or 503/504 with a
 * Retry-After), at most `policy.maxRetries` times. Every client that `crondeck serve` and
 * `crondeck controller` use is made here.
 */
export function retryingApiClient<T extends ApiType>(
  kubeConfig: KubeConfig,
  Api: ApiConstructor<T>,
  policy: Partial<RetryAfterPolicy> = {},
): T {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('no current cluster in the kubeconfig');
  return new Api(
    createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kubeConfig },
      httpApi: retryingHttpLibrary({ ...DEFAULT_POLICY, ...policy }),
    }),
  );
}
