import { fieldErr, type FieldError } from '../errors';
import type { WriteContext } from '../resources';
import { deepEqual, isPlainObject, type Obj } from '../types';
import { goQuote, goStringSlice, goStruct } from './goRender';
import { selectorConverts, validateLabelSelector, validateObjectMeta } from './metaValidation';
import { isDns1123Subdomain, isPathSegmentName } from './nameRules';

/** rbac.authorization.k8s.io/v1 validation (pkg/apis/rbac/validation) and defaults. */

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

function validatePolicyRule(rule: Obj, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (list(rule.verbs).length === 0)
    errs.push(fieldErr.required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = list(rule.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced) {
      errs.push(
        fieldErr.invalidRaw(
          `${path}.nonResourceURLs`,
          goStringSlice(urls),
          'namespaced rules cannot apply to non-resource URLs',
        ),
      );
    }
    if (list(rule.apiGroups).length || list(rule.resources).length || list(rule.resourceNames).length) {
      errs.push(
        fieldErr.invalidRaw(
          `${path}.nonResourceURLs`,
          goStringSlice(urls),
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    }
    return errs;
  }
  if (list(rule.apiGroups).length === 0)
    errs.push(fieldErr.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (list(rule.resources).length === 0)
    errs.push(fieldErr.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(obj: Obj, namespaced: boolean): FieldError[] {
  return list(obj.rules).flatMap((r, i) => validatePolicyRule(r, namespaced, `rules[${i}]`));
}

export function validateRole(obj: Obj): FieldError[] {
  return [...validateObjectMeta(obj.metadata, isPathSegmentName, true), ...validateRules(obj, true)];
}

export function validateClusterRole(obj: Obj): FieldError[] {
  const errs = [...validateObjectMeta(obj.metadata, isPathSegmentName, false), ...validateRules(obj, false)];
  const agg = obj.aggregationRule;
  if (isPlainObject(agg)) {
    const selectors = list(agg.clusterRoleSelectors);
    if (selectors.length === 0) {
      errs.push(
        fieldErr.required(
          'aggregationRule.clusterRoleSelectors',
          'at least one clusterRoleSelector required if aggregationRule is non-nil',
        ),
      );
    }
    selectors.forEach((sel, i) => {
      const at = `aggregationRule.clusterRoleSelectors[${i}]`;
      errs.push(...validateLabelSelector(sel, at));
      // The value is the nil labels.Selector the failed conversion returned (19 #109).
      if (!selectorConverts(sel)) errs.push(fieldErr.invalid(at, 'null', 'invalid label selector.'));
    });
  }
  return errs;
}

function validateSubject(s: Obj, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!s.name) errs.push(fieldErr.required(`${path}.name`));
  switch (s.kind) {
    case 'ServiceAccount':
      if (s.name)
        errs.push(...isDns1123Subdomain(s.name).map((m) => fieldErr.invalid(`${path}.name`, s.name, m)));
      if (s.apiGroup) errs.push(fieldErr.notSupported(`${path}.apiGroup`, s.apiGroup, ['']));
      if (!namespaced && !s.namespace) errs.push(fieldErr.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (s.apiGroup !== RBAC_GROUP)
        errs.push(fieldErr.notSupported(`${path}.apiGroup`, s.apiGroup ?? '', [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldErr.notSupported(`${path}.kind`, s.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function renderRoleRef(ref: Obj): string {
  return goStruct('rbac.RoleRef', [
    ['APIGroup', goQuote(ref.apiGroup ?? '')],
    ['Kind', goQuote(ref.kind ?? '')],
    ['Name', goQuote(ref.name ?? '')],
  ]);
}

/** ValidateRoleBinding / ValidateClusterRoleBinding, and on updates the fixed roleRef (19 #191). */
export function validateBinding(obj: Obj, ctx: WriteContext, namespaced: boolean): FieldError[] {
  const errs = validateObjectMeta(obj.metadata, isPathSegmentName, namespaced);
  const ref = (obj.roleRef ?? {}) as Obj;
  if (ref.apiGroup !== RBAC_GROUP)
    errs.push(fieldErr.notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) errs.push(fieldErr.notSupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!ref.name) errs.push(fieldErr.required('roleRef.name'));
  else errs.push(...isPathSegmentName(ref.name).map((m) => fieldErr.invalid('roleRef.name', ref.name, m)));
  list(obj.subjects).forEach((s, i) => errs.push(...validateSubject(s, namespaced, `subjects[${i}]`)));
  if (ctx.operation === 'update' && ctx.old && !deepEqual(ctx.old.roleRef, obj.roleRef)) {
    errs.push(fieldErr.invalidRaw('roleRef', renderRoleRef(ref), 'cannot change roleRef'));
  }
  return errs;
}

/** SetDefaults_RoleBinding / _Subject: the RBAC group where it was left out. */
export function defaultBinding(obj: Obj): void {
  const ref = (obj.roleRef ??= {});
  ref.apiGroup ||= RBAC_GROUP;
  ref.kind ??= '';
  ref.name ??= '';
  for (const s of list(obj.subjects)) {
    if (!s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP;
  }
}

/** Role and ClusterRole encode `rules` without omitempty: an unset list is `null`. */
export function defaultRules(obj: Obj): void {
  obj.rules ??= null;
}
