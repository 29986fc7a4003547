import { reviewToken, type Attributes } from '../auth';
import { notEmulated } from '../errors';
import type { HandlerResult, RequestContext, ServerServices, User } from '../handlers/context';
import { rfc3339, type Obj } from '../types';

/** authentication.k8s.io's UserInfo of an authenticated user. */
function userInfo(user: User): Obj {
  const info: Obj = { username: user.name };
  if (user.uid) info.uid = user.uid;
  info.groups = user.groups;
  if (user.extra) info.extra = user.extra;
  return info;
}

function answer(kind: string, group: string, metadata: Obj, spec: unknown, status: Obj): HandlerResult {
  const body: Obj = { kind, apiVersion: `${group}/v1`, metadata };
  if (spec !== undefined) body.spec = spec;
  body.status = status;
  return { status: 201, body };
}

/**
 * TokenReview (12-auth #8–#10): who a bearer token is, for the audiences asked (the API server's
 * by default), with the token authenticators' error texts when it is no one.
 */
export function tokenReview(svc: ServerServices, _ctx: RequestContext, body: Obj): HandlerResult {
  const spec = (body.spec ?? {}) as Obj;
  const asked = spec.audiences as string[] | undefined;
  const result = reviewToken(String(spec.token ?? ''), svc.tokens, asked?.length ? asked : undefined);
  const status =
    'error' in result
      ? { user: {}, error: result.error }
      : { authenticated: true, user: userInfo(result.user), audiences: result.audiences };
  return answer('TokenReview', 'authentication.k8s.io', { creationTimestamp: null }, spec, status);
}

/** SelfSubjectReview (12-auth #13): the requester as the authenticator saw them. */
export function selfSubjectReview(svc: ServerServices, ctx: RequestContext): HandlerResult {
  return answer(
    'SelfSubjectReview',
    'authentication.k8s.io',
    { creationTimestamp: rfc3339(svc.now()) },
    undefined,
    { userInfo: userInfo(ctx.user) },
  );
}

/** What a review's resourceAttributes or nonResourceAttributes ask, in authorizer terms. */
function attributesOf(spec: Obj, kind: string): Attributes {
  const resource = spec.resourceAttributes as Obj | undefined;
  const nonResource = spec.nonResourceAttributes as Obj | undefined;
  if (Boolean(resource) === Boolean(nonResource)) {
    throw notEmulated(`${kind} validation (exactly one of resourceAttributes, nonResourceAttributes)`);
  }
  if (nonResource)
    return { verb: nonResource.verb ?? '', path: nonResource.path ?? '', group: '', resource: '' };
  return {
    verb: resource!.verb ?? '',
    group: resource!.group ?? '',
    resource: resource!.resource ?? '',
    subresource: resource!.subresource || undefined,
    namespace: resource!.namespace || undefined,
    name: resource!.name || undefined,
  };
}

function decision(svc: ServerServices, user: User, a: Attributes): Obj {
  const { allowed, reason } = svc.decide(user, a);
  return reason ? { allowed, reason } : { allowed };
}

/** SubjectAccessReview (12-auth #11, #28, #29): the authorizer's answer for the user and groups named. */
export function subjectAccessReview(svc: ServerServices, _ctx: RequestContext, body: Obj): HandlerResult {
  const spec = (body.spec ?? {}) as Obj;
  if (!spec.user && !spec.groups?.length)
    throw notEmulated('SubjectAccessReview validation (user or groups)');
  const user: User = { name: spec.user ?? '', groups: spec.groups ?? [], uid: spec.uid, extra: spec.extra };
  const status = decision(svc, user, attributesOf(spec, 'SubjectAccessReview'));
  return answer('SubjectAccessReview', 'authorization.k8s.io', { creationTimestamp: null }, spec, status);
}

/** SelfSubjectAccessReview (12-auth #12, #30, #31): the same for the requester. */
export function selfSubjectAccessReview(svc: ServerServices, ctx: RequestContext, body: Obj): HandlerResult {
  const spec = (body.spec ?? {}) as Obj;
  const status = decision(svc, ctx.user, attributesOf(spec, 'SelfSubjectAccessReview'));
  return answer('SelfSubjectAccessReview', 'authorization.k8s.io', { creationTimestamp: null }, spec, status);
}
