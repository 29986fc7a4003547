import type { Attributes } from '../auth';
import type { ApiError } from '../errors';
import type { ResourceType } from '../resources';
import type { RouteInfo } from '../router';
import type { ServiceAccountTokens } from '../serviceAccountTokens';
import type { Store } from '../store';
import type { Obj } from '../types';

/** Who is asking (authn result). */
export interface User {
  name: string;
  groups: string[];
  /** A ServiceAccount token's: the ServiceAccount's uid and the credential id (TokenReview). */
  uid?: string;
  extra?: Record<string, string[]>;
}

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** What a handler needs about one request. */
export interface RequestContext {
  method: string;
  info: RouteInfo;
  type: ResourceType;
  query: URLSearchParams;
  rawBody: string;
  contentType: string;
  accept: string;
  /** Without `fieldManager`, the manager a write is recorded under comes from it (`node-fetch`). */
  userAgent?: string;
  user: User;
  /** Warning header values to send (already formatted `299 - "…"`). */
  warnings: string[];
  dryRun: boolean;
  fieldValidation: FieldValidation;
}

export interface HandlerResult {
  status: number;
  body: Obj;
}

/** Services the handlers share (the emulator implements it). */
export interface ServerServices {
  store: Store;
  now(): Date;
  /** Runs after every committed write: GC, CRD establishment, namespace cleanup. */
  afterWrite(): void;
  namespaceState(ns: string): 'missing' | 'active' | 'terminating';
  /** Hooks run for built-in resources with side effects (e.g. CRD registration). */
  onStored?(type: ResourceType, obj: Obj, event: 'ADDED' | 'MODIFIED' | 'DELETED'): void;
  error?(e: ApiError): void;
  /** The cluster's ServiceAccount token signer (TokenRequest) and authenticator. */
  readonly serviceAccountTokens: ServiceAccountTokens;
  /** Who a bearer token is for these audiences, or the authenticators' error (TokenReview). */
  reviewToken(token: string, audiences?: string[]): { user: User; audiences: string[] } | { error: string };
  /** The authorizer's decision (SubjectAccessReview). */
  decide(user: User, a: Attributes): { allowed: boolean; reason?: string };
  /** The rule resolvers' rules for a user in a namespace (SelfSubjectRulesReview). */
  rulesFor(
    user: User,
    namespace: string,
  ): { resourceRules: Obj[]; nonResourceRules: Obj[]; incomplete: boolean; error: string };
}

export function warning(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}
