import type { Attributes } from '../auth';
import type { ApiError } from '../errors';
import type { ResourceType } from '../resources';
import type { RouteInfo } from '../router';
import type { Store } from '../store';
import type { Obj } from '../types';

/** Who is asking (authn result). */
export interface User {
  name: string;
  groups: string[];
  /** A ServiceAccount token's: the ServiceAccount's uid and the credential id (TokenReview). */
  uid?: string;
  extra?: Record<string, string[]>;
  /** The audiences a bound token was issued for; the API server takes only its own. */
  audiences?: string[];
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
  /** Accepts a bearer token from now on (TokenRequest). */
  addToken(token: string, user: User): void;
  /** Bearer tokens and their users (TokenReview). */
  readonly tokens: Map<string, User>;
  /** The authorizer's decision (SubjectAccessReview). */
  decide(user: User, a: Attributes): { allowed: boolean; reason?: string };
}

export function warning(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}
