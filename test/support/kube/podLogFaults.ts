import { ApiError, type StatusDetails } from './errors';

/**
 * How the kubelet behind pods/log fails, for a test of a cluster where logs cannot be read although
 * RBAC allows it (RBAC's own 403 is the authorizer's: grant or withhold `get` on `pods/log`):
 * - `unreachable`: the API server cannot connect to the kubelet (node down, firewall, a kubelet
 *   serving certificate it refuses). Its HTTP client's error reaches the caller as a 500 whose
 *   Status has no reason (responsewriters ErrorToAPIStatus for an error that is not a Status):
 *   `Get "https://10.0.0.1:10250/containerLogs/NS/POD/CONTAINER": dial tcp 10.0.0.1:10250: connect:
 *   connection refused`; `dialError` replaces the part after the address (`i/o timeout`, say).
 * - `answers`: the kubelet (or a proxy before it) answers `status` with a plain-text `body`, which
 *   the API server turns into a Status as its GenericHttpResponseChecker does: 500 → InternalError
 *   `Internal error occurred: BODY`; 400 → BadRequest `BODY`; anything else →
 *   NewGenericServerResponse (a 502: InternalError `an error on the server ("BODY") has prevented
 *   the request from succeeding ( pods/log POD)`, the empty verb leaving its double space).
 * - `hangs`: the kubelet takes the connection and never answers (a kubelet stuck under load). The
 *   API server does not time pods/log out (a long-running request: it may follow a log), so neither
 *   does the request: the caller must.
 * None is in the recorded transcripts (the recording had no kubelet): the shapes are upstream's
 * (apiserver registry/generic/rest/streamer.go and response_checker.go, apimachinery errors.go).
 */
export type PodLogFault =
  | { kind: 'unreachable'; dialError?: string }
  | { kind: 'answers'; status: number; body: string }
  | { kind: 'hangs' };

export class PodLogFaults {
  private fault?: PodLogFault;
  /** Requests left to fail; undefined: until cleared. */
  private remaining?: number;

  /** Fails every pods/log request that reaches a kubelet until `clear()`, or `count` of them. */
  set(fault: PodLogFault, options: { count?: number } = {}): void {
    if (fault.kind === 'answers' && fault.status >= 200 && fault.status <= 206) {
      throw new Error('a kubelet answering 2xx is no fault');
    }
    this.fault = fault;
    this.remaining = options.count;
  }

  clear(): void {
    this.fault = undefined;
  }

  /** The fault for this request, or null to let the kubelet answer. */
  take(): PodLogFault | null {
    if (!this.fault) return null;
    if (this.remaining !== undefined) {
      if (this.remaining <= 0) return null;
      this.remaining -= 1;
    }
    return this.fault;
  }
}

/** The error of an API server whose connection to the kubelet at `url` failed (a url.Error). */
export function kubeletUnreachable(url: URL, dialError = 'connect: connection refused'): ApiError {
  return new ApiError(500, '', `Get "${url.toString()}": dial tcp ${url.host}: ${dialError}`);
}

/** GenericHttpResponseChecker.Check of a kubelet answer that is not 2xx, for pods/log of `pod`. */
export function kubeletAnswered(status: number, body: string, pod: string): ApiError {
  if (status === 500) {
    // NewInternalError: the cause has only a message (no reason, no field).
    const details = { causes: [{ message: body }] } as unknown as StatusDetails;
    return new ApiError(500, 'InternalError', `Internal error occurred: ${body}`, details);
  }
  if (status === 400) return new ApiError(400, 'BadRequest', body);
  const [reason, message] = genericResponse(status, body);
  return new ApiError(status, reason, `${message} ( pods/log ${pod})`, { name: pod, kind: 'pods/log' });
}

/** NewGenericServerResponse's reason and message for a status code (verb empty). */
function genericResponse(code: number, serverMessage: string): [string, string] {
  switch (code) {
    case 409:
      return ['Conflict', 'the server reported a conflict'];
    case 404:
      return ['NotFound', 'the server could not find the requested resource'];
    case 401:
      return ['Unauthorized', 'the server has asked for the client to provide credentials'];
    case 403:
      return ['Forbidden', serverMessage];
    case 406:
      return [
        'NotAcceptable',
        serverMessage === '' || serverMessage === 'unknown'
          ? 'the server was unable to respond with a content type that the client supports'
          : serverMessage,
      ];
    case 415:
      return ['UnsupportedMediaType', serverMessage];
    case 405:
      return ['MethodNotAllowed', 'the server does not allow this method on the requested resource'];
    case 422:
      return ['Invalid', 'the server rejected our request due to an error in our request'];
    case 503:
      return ['ServiceUnavailable', 'the server is currently unable to handle the request'];
    case 504:
      return [
        'Timeout',
        'the server was unable to return a response in the time allotted, but may still be processing the request',
      ];
    case 429:
      return [
        'TooManyRequests',
        'the server has received too many requests and has asked us to try again later',
      ];
    default:
      return code >= 500
        ? [
            'InternalError',
            `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`,
          ]
        : ['', `the server responded with the status code ${code} but did not return more information`];
  }
}
