import { ApiError } from './errors';
import type { User } from './handlers/context';

/** What a request asks to do, in RBAC terms. */
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

/** The ServiceAccount issuer, also the API server's audience (kube-api README "The server"). */
export const API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';

/**
 * A bearer token's user for `audiences` (the API server's own by default), or why not: the texts
 * of the token authenticators that TokenReview reports (12-auth #9, #10).
 */
export function reviewToken(
  token: string,
  tokens: Map<string, User>,
  audiences: string[] = [API_AUDIENCE],
): { user: User; audiences: string[] } | { error: string } {
  const user = tokens.get(token);
  if (!user) return { error: 'invalid bearer token' };
  const issuedFor = user.audiences ?? [API_AUDIENCE];
  const common = audiences.filter((a) => issuedFor.includes(a));
  if (common.length === 0) {
    return {
      error: `[invalid bearer token, token audiences ${goStrings(issuedFor)} is invalid for the target audiences ${goStrings(audiences)}]`,
    };
  }
  return { user, audiences: common };
}

/** Go's %q of a []string: `["a" "b"]`. */
function goStrings(list: string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** Bearer token → user; an unknown token, or one for another audience → 401 (12-auth #20). */
export function authenticate(header: string | undefined, tokens: Map<string, User>): User {
  if (!header) return ANONYMOUS;
  const m = /^Bearer\s+(.+)$/i.exec(header);
  const reviewed = m ? reviewToken(m[1]!.trim(), tokens) : undefined;
  if (!reviewed || 'error' in reviewed) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
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

/** The 403 text of the RBAC authorizer (12-auth #14–#19, README "RBAC 403"). */
export function forbidden(user: User, a: Attributes, suffix = ''): ApiError {
  const qualified = a.group ? `${a.resource}.${a.group}` : a.resource;
  const what = a.name ? `${qualified} "${a.name}"` : qualified;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  const details: Record<string, string> = {};
  if (a.name) details.name = a.name;
  if (a.group) details.group = a.group;
  details.kind = a.resource;
  return new ApiError(
    403,
    'Forbidden',
    `${what} is forbidden: User "${user.name}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}${suffix}`,
    details,
  );
}
