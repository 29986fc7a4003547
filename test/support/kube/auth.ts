import { ApiError } from './errors';
import type { User } from './handlers/context';
import { API_AUDIENCE, type ServiceAccountTokens } from './serviceAccountTokens';
import type { Store } from './store';

export { API_AUDIENCE };

/** What a request asks to do, in RBAC terms (requestAttributes.ts derives it from a request). */
export interface Attributes {
  verb: string;
  /** A non-resource request (SubjectAccessReview's nonResourceAttributes): its URL path. */
  path?: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** A test-configured permission: matches when every given field matches ('*' = any). */
export interface AllowRule {
  user: string;
  verbs: string[];
  groups?: string[];
  resources?: string[];
  namespaces?: string[];
}

const ANONYMOUS: User = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** The token authenticators the emulated API server has: a static token file and ServiceAccount JWTs. */
export interface TokenAuthenticators {
  /** `--token-auth-file` users (the admin, tests' own): audience-agnostic. */
  staticTokens: Map<string, User>;
  serviceAccountTokens: ServiceAccountTokens;
  store: Store;
  now(): Date;
}

/** apimachinery's utilerrors.Aggregate message: one error as is, several deduplicated in `[a, b]`. */
export function aggregateMessage(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : unique.length === 0 ? '' : `[${unique.join(', ')}]`;
}

/** AuthenticatedGroupAdder: every authenticated user but anonymous is in system:authenticated. */
function withAuthenticatedGroup(user: User): User {
  if (user.name === ANONYMOUS.name) return user;
  if (user.groups.some((g) => g === 'system:authenticated' || g === 'system:unauthenticated')) return user;
  return { ...user, groups: [...user.groups, 'system:authenticated'] };
}

/**
 * A bearer token's user for `audiences` (the API server's own when absent), or why not: the text
 * a TokenReview reports. Recorded: "invalid bearer token" for a token no authenticator takes
 * (12-auth #10) and `[invalid bearer token, <the JWT authenticator's error>]` for a ServiceAccount
 * token it refuses (#9, audiences). The expiry, deleted-ServiceAccount and uid texts are upstream's
 * (pkg/serviceaccount claims.go) in that same recorded wrapping.
 */
export function reviewToken(
  token: string,
  authn: TokenAuthenticators,
  audiences?: string[],
): { user: User; audiences: string[] } | { error: string } {
  const target = audiences ?? [API_AUDIENCE];
  const staticUser = authn.staticTokens.get(token);
  // Audience-agnostic authenticators answer only for the API server's own audience.
  if (staticUser && target.includes(API_AUDIENCE)) {
    return { user: withAuthenticatedGroup(staticUser), audiences: [API_AUDIENCE] };
  }
  const verdict = authn.serviceAccountTokens.authenticate(token, audiences, authn.now(), authn.store);
  if (verdict === null) return { error: 'invalid bearer token' };
  if ('error' in verdict) return { error: aggregateMessage(['invalid bearer token', verdict.error]) };
  return { user: withAuthenticatedGroup(verdict.user), audiences: verdict.audiences };
}

/** bearertoken.go's warning when the header has an empty token followed by more text. */
const SPACE_BEFORE_TOKEN =
  'the provided Authorization header contains extra space before the bearer token, and is ignored';

/**
 * The request authenticator (bearertoken.go then the union with anonymous): no Authorization
 * header, one that is not `Bearer <token>`, or an empty token is the anonymous user; a token no
 * authenticator takes, or one they refuse, is 401 `Unauthorized` (12-auth #20, #21).
 */
export function authenticate(
  header: string | undefined,
  authn: TokenAuthenticators,
  warn: (text: string) => void = () => undefined,
): User {
  const auth = (header ?? '').trim();
  if (!auth) return ANONYMOUS;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return ANONYMOUS;
  const token = parts[1]!;
  if (!token) {
    if (parts.length > 2) warn(SPACE_BEFORE_TOKEN);
    return ANONYMOUS;
  }
  const reviewed = reviewToken(token, authn);
  if ('error' in reviewed) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
  return reviewed.user;
}

function matches(list: string[] | undefined, value: string): boolean {
  return !list || list.includes('*') || list.includes(value);
}

export function allowedByRules(rules: AllowRule[], user: User, a: Attributes): boolean {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return rules.some(
    (r) =>
      (r.user === user.name || r.user === '*') &&
      matches(r.verbs, a.verb) &&
      matches(r.groups, a.group) &&
      matches(r.resources, resource) &&
      (a.namespace === undefined ? !r.namespaces : matches(r.namespaces, a.namespace)),
  );
}

/** responsewriters' sanitizer: nothing in a forbidden message may look like HTML. */
function sanitize(message: string): string {
  return message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The 403 of the authorization filter (responsewriters.Forbidden with apierrors.NewForbidden):
 * `<resource>.<group> ["name"] is forbidden: User "u" cannot <verb> resource "<res[/sub]>" in API
 * group "<g>" in the namespace "<ns>"` or `at the cluster scope` (12-auth #14–#19, #21); for a
 * non-resource request `forbidden: User "u" cannot <verb> path "<path>"` with empty details.
 * A non-empty authorizer reason follows after `: ` (12-auth #27).
 */
export function forbidden(user: User, a: Attributes, reason = ''): ApiError {
  const suffix = reason ? `: ${reason}` : '';
  if (a.path !== undefined) {
    const message = sanitize(
      `User ${JSON.stringify(user.name)} cannot ${a.verb} path ${JSON.stringify(a.path)}`,
    );
    return new ApiError(403, 'Forbidden', `forbidden: ${message}${suffix}`, {});
  }
  const qualified = a.group ? `${a.resource}.${a.group}` : a.resource;
  const what = a.name ? `${qualified} ${JSON.stringify(a.name)}` : qualified;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  const details: Record<string, string> = {};
  if (a.name) details.name = a.name;
  if (a.group) details.group = a.group;
  if (a.resource) details.kind = a.resource;
  const message = sanitize(
    `User ${JSON.stringify(user.name)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group)} ${scope}`,
  );
  return new ApiError(403, 'Forbidden', `${what} is forbidden: ${message}${suffix}`, details);
}
