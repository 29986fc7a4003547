import { ApiError } from './errors';

/** The review APIs a service that delegates authentication and authorization calls. */
export const REVIEW_RESOURCES = [
  'tokenreviews',
  'subjectaccessreviews',
  'selfsubjectaccessreviews',
  'selfsubjectrulesreviews',
  'selfsubjectreviews',
] as const;

export type ReviewResource = (typeof REVIEW_RESOURCES)[number];

/**
 * How the API server fails a review request:
 * - `hold`: no answer until `release()` (or the emulator stops): a slow or hung API server, for a
 *   client's own timeout; `waiting()` tells when a request is being held.
 * - `reset`: the connection is dropped without an answer, as when the API server process dies.
 * - `timeout`: the API server's timeout filter's 504 (apierrors.NewTimeoutError): `Timeout:
 *   request did not complete within requested timeout - context deadline exceeded`, reason
 *   `Timeout`, details `{}`.
 * - `tooManyRequests`: API Priority and Fairness rejecting the request: 429 with a plain-text body
 *   `Too many requests, please try again later.` and `Retry-After` (filters/maxinflight.go).
 * None of these is in the recorded transcripts: their shapes are upstream's.
 */
export type ReviewFaultKind = 'hold' | 'reset' | 'timeout' | 'tooManyRequests';

interface ActiveFault {
  kind: ReviewFaultKind;
  resources: Set<string>;
  /** Requests left to fail; undefined: until cleared. */
  remaining?: number;
  retryAfterSeconds: number;
}

/** What the emulator does with one review request. */
export type ReviewFaultAction =
  | { kind: 'hold'; until: Promise<void> }
  | { kind: 'reset' }
  | { kind: 'error'; error: ApiError }
  | { kind: 'plain'; status: number; headers: Record<string, string>; body: string };

/**
 * Fault injection for the review endpoints only (TokenReview, SubjectAccessReview,
 * SelfSubjectAccessReview, SelfSubjectRulesReview, SelfSubjectReview): every other request is
 * answered as usual, so a service's 503 path can be tested while its cluster writes still work.
 * Faults apply after authentication and before authorization, where API Priority and Fairness
 * sits in the real filter chain: a caller with a bad token still gets its 401.
 */
export class ReviewFaults {
  private fault?: ActiveFault;
  private held: (() => void)[] = [];
  private heldCount = 0;

  /** Fails review requests (all five kinds unless `resources` narrows them) until `clear()`, or `count` times. */
  set(
    kind: ReviewFaultKind,
    options: { resources?: ReviewResource[]; count?: number; retryAfterSeconds?: number } = {},
  ): void {
    this.fault = {
      kind,
      resources: new Set(options.resources ?? REVIEW_RESOURCES),
      remaining: options.count,
      retryAfterSeconds: options.retryAfterSeconds ?? 1,
    };
  }

  /** Review requests are answered again; held ones are answered now. */
  clear(): void {
    this.fault = undefined;
    this.release();
  }

  /** Lets every held request go on to its normal answer (the fault stays for new requests). */
  release(): void {
    const held = this.held;
    this.held = [];
    for (const go of held) go();
  }

  /** How many review requests are being held right now. */
  waiting(): number {
    return this.heldCount;
  }

  /** The action for a request to `resource`, or null to answer it normally. */
  take(resource: string): ReviewFaultAction | null {
    const f = this.fault;
    if (!f || !f.resources.has(resource)) return null;
    if (f.remaining !== undefined) {
      if (f.remaining <= 0) return null;
      f.remaining -= 1;
    }
    switch (f.kind) {
      case 'hold': {
        this.heldCount += 1;
        const until = new Promise<void>((resolve) => this.held.push(resolve)).finally(() => {
          this.heldCount -= 1;
        });
        return { kind: 'hold', until };
      }
      case 'reset':
        return { kind: 'reset' };
      case 'timeout':
        return {
          kind: 'error',
          error: new ApiError(
            504,
            'Timeout',
            'Timeout: request did not complete within requested timeout - context deadline exceeded',
            {},
          ),
        };
      case 'tooManyRequests':
        return {
          kind: 'plain',
          status: 429,
          headers: {
            'content-type': 'text/plain; charset=utf-8',
            'x-content-type-options': 'nosniff',
            'retry-after': String(f.retryAfterSeconds),
          },
          body: 'Too many requests, please try again later.\n',
        };
    }
  }
}
