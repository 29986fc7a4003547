import type { Attributes } from '../auth';
import { badRequest, fieldErr, invalid, notEmulated, type FieldError } from '../errors';
import type { HandlerResult, RequestContext, ServerServices, User } from '../handlers/context';
import { isPlainObject, rfc3339, type Obj } from '../types';
import { goQuote, goStruct } from './goRender';

/** authentication.k8s.io's UserInfo of an authenticated user (empty uid and extra left out). */
function userInfo(user: User): Obj {
  const info: Obj = { username: user.name };
  if (user.uid) info.uid = user.uid;
  info.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length > 0) info.extra = user.extra;
  return info;
}

function answer(kind: string, group: string, metadata: Obj, spec: unknown, status: Obj): HandlerResult {
  const body: Obj = { kind, apiVersion: `${group}/v1`, metadata };
  if (spec !== undefined) body.spec = spec;
  body.status = status;
  return { status: 201, body };
}

/**
 * TokenReview (12-auth #8–#10, tokenreview/storage.go): who a bearer token is, for the audiences
 * asked (the API server's by default), with the token authenticators' error texts when it is no
 * one; an empty token is refused before any authenticator runs.
 */
export function tokenReview(svc: ServerServices, _ctx: RequestContext, body: Obj): HandlerResult {
  const spec = (isPlainObject(body.spec) ? body.spec : {}) as Obj;
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (!token) throw badRequest('token is required for TokenReview in authentication');
  // The review puts the token in a `Bearer` header and the bearer parser splits at spaces.
  if (/\s/.test(token)) throw notEmulated('TokenReview of a token with white space in it');
  const asked = spec.audiences as string[] | undefined;
  const result = svc.reviewToken(token, asked?.length ? asked : undefined);
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

/**
 * ValidateSubjectAccessReviewSpec / ValidateSelfSubjectAccessReviewSpec (pkg/apis/authorization/
 * validation): exactly one of the attribute kinds, and for a SubjectAccessReview a user or group.
 * Bad values print as field.Error does: a nil pointer as "null", a struct with Go's %#v.
 */
function validateSpec(spec: Obj, withSubject: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const resource = spec.resourceAttributes as Obj | undefined | null;
  const nonResource = spec.nonResourceAttributes as Obj | undefined | null;
  if (resource && nonResource) {
    const rendered = goStruct('authorization.NonResourceAttributes', [
      ['Path', goQuote(String(nonResource.path ?? ''))],
      ['Verb', goQuote(String(nonResource.verb ?? ''))],
    ]);
    errs.push(
      fieldErr.invalidRaw(
        'spec.nonResourceAttributes',
        rendered,
        'cannot be specified in combination with resourceAttributes',
      ),
    );
  }
  if (!resource && !nonResource) {
    errs.push(
      fieldErr.invalid(
        'spec.resourceAttributes',
        'null',
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    );
  }
  const groups = Array.isArray(spec.groups) ? spec.groups : [];
  if (withSubject && !spec.user && groups.length === 0) {
    errs.push(
      fieldErr.invalid(
        'spec.user',
        String(spec.user ?? ''),
        'at least one of user or group must be specified',
      ),
    );
  }
  return errs;
}

/** What a review asks, in authorizer terms (authorization/util ResourceAttributesFrom and friends). */
function attributesOf(spec: Obj, kind: string): Attributes {
  const nonResource = spec.nonResourceAttributes as Obj | undefined;
  if (nonResource)
    return { verb: nonResource.verb ?? '', path: nonResource.path ?? '', group: '', resource: '' };
  const resource = spec.resourceAttributes as Obj;
  // Selectors (AuthorizeWithSelectors) do not change an RBAC answer but have their own
  // validation and evaluationError texts, which the emulator does not write.
  if (resource.fieldSelector !== undefined || resource.labelSelector !== undefined) {
    throw notEmulated(`${kind} with resourceAttributes.fieldSelector or labelSelector`);
  }
  const a: Attributes = {
    verb: resource.verb ?? '',
    group: resource.group ?? '',
    resource: resource.resource ?? '',
  };
  if (resource.subresource) a.subresource = resource.subresource;
  if (resource.namespace) a.namespace = resource.namespace;
  if (resource.name) a.name = resource.name;
  return a;
}

function specOf(body: Obj, kind: string): Obj {
  const meta = (isPlainObject(body.metadata) ? body.metadata : {}) as Obj;
  // ValidateSubjectAccessReview wants empty metadata; its %#v of an ObjectMeta is not written here.
  if (Object.entries(meta).some(([k, v]) => k !== 'managedFields' && v !== null && v !== undefined)) {
    throw notEmulated(`${kind} with metadata`);
  }
  return (isPlainObject(body.spec) ? body.spec : {}) as Obj;
}

function decision(svc: ServerServices, user: User, a: Attributes): Obj {
  const { allowed, reason } = svc.decide(user, a);
  return reason ? { allowed, reason } : { allowed };
}

/** SubjectAccessReview (12-auth #11, #28, #29): the authorizer's answer for the user and groups named. */
export function subjectAccessReview(svc: ServerServices, _ctx: RequestContext, body: Obj): HandlerResult {
  const spec = specOf(body, 'SubjectAccessReview');
  const errs = validateSpec(spec, true);
  if (errs.length) throw invalid('SubjectAccessReview', 'authorization.k8s.io', '', errs);
  const user: User = { name: spec.user ?? '', groups: spec.groups ?? [] };
  if (spec.uid) user.uid = spec.uid;
  if (spec.extra) user.extra = spec.extra;
  const status = decision(svc, user, attributesOf(spec, 'SubjectAccessReview'));
  return answer('SubjectAccessReview', 'authorization.k8s.io', { creationTimestamp: null }, spec, status);
}

/** SelfSubjectAccessReview (12-auth #12, #30, #31): the same for the requester. */
export function selfSubjectAccessReview(svc: ServerServices, ctx: RequestContext, body: Obj): HandlerResult {
  const spec = specOf(body, 'SelfSubjectAccessReview');
  const errs = validateSpec(spec, false);
  if (errs.length) throw invalid('SelfSubjectAccessReview', 'authorization.k8s.io', '', errs);
  const status = decision(svc, ctx.user, attributesOf(spec, 'SelfSubjectAccessReview'));
  return answer('SelfSubjectAccessReview', 'authorization.k8s.io', { creationTimestamp: null }, spec, status);
}

/**
 * SelfSubjectRulesReview (12-auth #32, selfsubjectrulesreview/rest.go): the rules that apply to
 * the requester in a namespace, as a new object (its `spec` comes back empty), `incomplete`
 * false as RBAC reports, and the rule resolution errors as `evaluationError`.
 */
export function selfSubjectRulesReview(svc: ServerServices, ctx: RequestContext, body: Obj): HandlerResult {
  const spec = (isPlainObject(body.spec) ? body.spec : {}) as Obj;
  const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
  if (!namespace) throw badRequest('no namespace on request');
  const rules = svc.rulesFor(ctx.user, namespace);
  const status: Obj = {
    resourceRules: rules.resourceRules,
    nonResourceRules: rules.nonResourceRules,
    incomplete: rules.incomplete,
  };
  if (rules.error) status.evaluationError = rules.error;
  return answer('SelfSubjectRulesReview', 'authorization.k8s.io', { creationTimestamp: null }, {}, status);
}
