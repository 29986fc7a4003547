import { createHash } from 'node:crypto';
import type { Caller } from '../domain/caller';
import type {
  AccessAttributes,
  AccessReviewAnswer,
  ReviewedUser,
  TokenReviewAnswer,
} from '../kube/accessReviews';
import type { Logger } from '../logging/logger';
import { ApiServerUnavailableError } from './apiServerUnavailable';
import { ReviewCache } from './reviewCache';

/** What the reviews go through (kube/accessReviews.ts's AccessReviews; tests may wrap it). */
export interface ReviewApi {
  reviewToken(token: string, signal: AbortSignal): Promise<TokenReviewAnswer>;
  reviewAccess(
    user: ReviewedUser,
    attributes: AccessAttributes,
    signal: AbortSignal,
  ): Promise<AccessReviewAnswer>;
}

export interface ReviewerOptions {
  api: ReviewApi;
  logger: Logger;
  /** How long an answer is kept (SERVICE_AUTH_CACHE_SECONDS). */
  cacheTtlMs: number;
  /** How long a review may take before the request is answered 503 (SERVICE_AUTH_REVIEW_TIMEOUT_MS). */
  timeoutMs: number;
  now?: () => number;
}

/** Answers kept of each kind: some thousands of callers and questions. */
const MAX_KEPT_TOKENS = 4096;
const MAX_KEPT_DECISIONS = 16384;

/** Who a token is: the caller (without the token), or why the API server took it for no one. */
type Authentication = { user: ReviewedUser } | { refusal: string };

/**
 * Authentication and authorization by the cluster (SERVICE_AUTH=kubernetes): a TokenReview says
 * who a bearer token is, a SubjectAccessReview what that user may do, both sent with the service's
 * own credentials, each within a timeout. Answers are kept briefly (ReviewCache), refusals too;
 * tokens by their SHA-256, decisions by the user, their groups, uid and extra, and the question.
 */
export class Reviewer {
  private readonly tokens: ReviewCache<Authentication>;
  private readonly decisions: ReviewCache<boolean>;

  constructor(private readonly options: ReviewerOptions) {
    const cache = { ttlMs: options.cacheTtlMs, now: options.now };
    this.tokens = new ReviewCache({ ...cache, maxEntries: MAX_KEPT_TOKENS });
    this.decisions = new ReviewCache({ ...cache, maxEntries: MAX_KEPT_DECISIONS });
  }

  /** The caller a bearer token is, or a 401's message; rejects with ApiServerUnavailableError. */
  async authenticate(token: string): Promise<Caller | { refusal: string }> {
    const key = createHash('sha256').update(token).digest('hex');
    const answer = await this.tokens.get(key, () =>
      this.review('TokenReview', async (signal) => {
        const reviewed = await this.options.api.reviewToken(token, signal);
        if (reviewed.authenticated) return { user: reviewed.user };
        return {
          refusal:
            "the cluster's API server did not accept the bearer token" +
            (reviewed.error ? ` (${reviewed.error})` : '') +
            ': send a current ServiceAccount token or OIDC ID token of this cluster',
        };
      }),
    );
    return 'refusal' in answer ? answer : { ...answer.user, token };
  }

  /** Whether the caller may do what `attributes` ask; rejects with ApiServerUnavailableError. */
  allowed(caller: Caller, attributes: AccessAttributes): Promise<boolean> {
    const user: ReviewedUser = {
      username: caller.username,
      uid: caller.uid,
      groups: caller.groups,
      extra: caller.extra,
    };
    const key = JSON.stringify([
      user.username,
      user.uid,
      [...user.groups].sort(),
      Object.entries(user.extra).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      attributes,
    ]);
    return this.decisions.get(key, () =>
      this.review('SubjectAccessReview', async (signal) => {
        return (await this.options.api.reviewAccess(user, attributes, signal)).allowed;
      }),
    );
  }

  /** One review within the timeout; any failure becomes ApiServerUnavailableError. */
  private async review<T>(kind: string, ask: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const { timeoutMs, logger } = this.options;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      return await ask(signal);
    } catch (error) {
      const why = signal.aborted ? `no answer within ${timeoutMs} ms` : describeFailure(error);
      logger.warn("the cluster's API server could not review a request", { review: kind, why, err: error });
      throw new ApiServerUnavailableError(
        `the cluster's API server could not review the request (${kind}: ${why}); try again shortly`,
        { cause: error },
      );
    }
  }
}

/** What went wrong with a review, in a few words (an ApiException's status, a network error's code). */
function describeFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number') return `it answered ${code}`;
  if (typeof code === 'string') return code;
  return (error as Error)?.message ?? String(error);
}
