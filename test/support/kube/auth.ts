import { ApiError } from './errors';
import type { User } from './handlers/context';

/** What a request asks to do, in RBAC terms. */
export interface Attributes {
  verb: string;
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

/** Bearer token → user; unknown token → 401 (12-auth #20). */
export function authenticate(header: string | undefined, tokens: Map<string, User>): User {
  if (!header) return ANONYMOUS;
  const m = /^Bearer\s+(.+)$/i.exec(header);
  const user = m ? tokens.get(m[1]!.trim()) : undefined;
  if (!user) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
  return user;
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
