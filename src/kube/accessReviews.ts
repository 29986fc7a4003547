import type {
  Configuration,
  KubeConfig,
  V1SubjectAccessReview,
  V1TokenReview,
} from '@kubernetes/client-node';
import {
  AuthenticationV1ApiRequestFactory,
  AuthenticationV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/AuthenticationV1Api.js';
import {
  AuthorizationV1ApiRequestFactory,
  AuthorizationV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/AuthorizationV1Api.js';
import type { Logger } from '../logging/logger';
import { send } from './leanApis';
import { retryingApiClient } from './retryAfter';

/** Who a bearer token is, as the API server's authenticators say (TokenReview `status.user`). */
export interface ReviewedUser {
  username: string;
  uid: string | null;
  groups: string[];
  extra: Record<string, string[]>;
}

/** A TokenReview's answer: the token's user, or why the API server took it for no one. */
export type TokenReviewAnswer =
  { authenticated: true; user: ReviewedUser } | { authenticated: false; error: string | null };

/** What a SubjectAccessReview asks about: a resource (in a namespace, or all) or a URL path. */
export type AccessAttributes =
  | {
      kind: 'resource';
      verb: string;
      group: string;
      resource: string;
      subresource?: string;
      /** Absent: every namespace (a ClusterRoleBinding's grant), or a cluster-scoped resource. */
      namespace?: string;
      name?: string;
    }
  | { kind: 'nonResource'; verb: string; path: string };

/** A SubjectAccessReview's answer. */
export interface AccessReviewAnswer {
  allowed: boolean;
  /** The authorizer's reason (RBAC: which binding allowed it), when it gave one. */
  reason: string | null;
}

/** The two review APIs over client-node's generated request factories (as leanApis.ts does). */
class LeanReviewApis {
  private readonly tokenRequests: AuthenticationV1ApiRequestFactory;
  private readonly tokenResponses = new AuthenticationV1ApiResponseProcessor();
  private readonly accessRequests: AuthorizationV1ApiRequestFactory;
  private readonly accessResponses = new AuthorizationV1ApiResponseProcessor();

  constructor(private readonly configuration: Configuration) {
    this.tokenRequests = new AuthenticationV1ApiRequestFactory(configuration);
    this.accessRequests = new AuthorizationV1ApiRequestFactory(configuration);
  }

  createTokenReview(body: V1TokenReview, signal: AbortSignal): Promise<V1TokenReview> {
    return send(
      this.configuration,
      this.tokenRequests.createTokenReview(body),
      (response) => this.tokenResponses.createTokenReviewWithHttpInfo(response),
      undefined,
      signal,
    );
  }

  createSubjectAccessReview(
    body: V1SubjectAccessReview,
    signal: AbortSignal,
  ): Promise<V1SubjectAccessReview> {
    return send(
      this.configuration,
      this.accessRequests.createSubjectAccessReview(body),
      (response) => this.accessResponses.createSubjectAccessReviewWithHttpInfo(response),
      undefined,
      signal,
    );
  }
}

/**
 * TokenReviews and SubjectAccessReviews sent with the service's own credentials (it needs `create`
 * on `tokenreviews` and `subjectaccessreviews`): who a caller's bearer token is, and what that
 * user may do. Each request ends when `signal` aborts (the caller's timeout).
 *
 * @public Required lazily by src/service.ts in Kubernetes auth mode (local mode never loads
 * client-node); knip does not follow that require.
 */
export class AccessReviews {
  private readonly api: LeanReviewApis;

  constructor(kubeConfig: KubeConfig, logger: Logger) {
    this.api = retryingApiClient(kubeConfig, LeanReviewApis, {
      onRetry: (retry) => logger.info('the API server asked to wait; sending the review again', retry),
    });
  }

  /** Who `token` is, for the API server's own audiences (those a `kubectl` token has). */
  async reviewToken(token: string, signal: AbortSignal): Promise<TokenReviewAnswer> {
    const review = await this.api.createTokenReview(
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      signal,
    );
    const status = review.status;
    const user = status?.user;
    if (!status?.authenticated || !user?.username) {
      return { authenticated: false, error: status?.error ?? null };
    }
    return {
      authenticated: true,
      user: {
        username: user.username,
        uid: user.uid ?? null,
        groups: user.groups ?? [],
        extra: user.extra ?? {},
      },
    };
  }

  /** Whether `user` may do what `attributes` say. */
  async reviewAccess(
    user: ReviewedUser,
    attributes: AccessAttributes,
    signal: AbortSignal,
  ): Promise<AccessReviewAnswer> {
    const review = await this.api.createSubjectAccessReview(
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: user.username,
          groups: user.groups,
          ...(user.uid ? { uid: user.uid } : {}),
          ...(Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
          ...(attributes.kind === 'nonResource'
            ? { nonResourceAttributes: { path: attributes.path, verb: attributes.verb } }
            : {
                resourceAttributes: {
                  verb: attributes.verb,
                  group: attributes.group,
                  resource: attributes.resource,
                  ...(attributes.subresource ? { subresource: attributes.subresource } : {}),
                  ...(attributes.namespace ? { namespace: attributes.namespace } : {}),
                  ...(attributes.name ? { name: attributes.name } : {}),
                },
              }),
        },
      },
      signal,
    );
    return { allowed: review.status?.allowed === true, reason: review.status?.reason ?? null };
  }
}
