import type { ResourceType } from '../resources';
import { builtin } from './common';
import { decoding } from './decoding';
import {
  defaultBinding,
  defaultRules,
  RBAC_GROUP,
  validateBinding,
  validateClusterRole,
  validateRole,
} from './rbacValidation';
import {
  selfSubjectAccessReview,
  selfSubjectReview,
  selfSubjectRulesReview,
  subjectAccessReview,
  tokenReview,
} from './reviews';

const G = RBAC_GROUP;

/** RBAC objects are validated as the server does; builtins/authorizer.ts evaluates them. */
export const roles: ResourceType = builtin({
  group: G,
  version: 'v1',
  resource: 'roles',
  kind: 'Role',
  namespaced: true,
  ...decoding(`${G}/v1`, 'Role'),
  defaults: defaultRules,
  validate: validateRole,
});
export const roleBindings: ResourceType = builtin({
  group: G,
  version: 'v1',
  resource: 'rolebindings',
  kind: 'RoleBinding',
  namespaced: true,
  ...decoding(`${G}/v1`, 'RoleBinding'),
  defaults: defaultBinding,
  validate: (obj, ctx) => validateBinding(obj, ctx, true),
});
export const clusterRoles: ResourceType = builtin({
  group: G,
  version: 'v1',
  resource: 'clusterroles',
  kind: 'ClusterRole',
  namespaced: false,
  ...decoding(`${G}/v1`, 'ClusterRole'),
  defaults: defaultRules,
  validate: validateClusterRole,
});
export const clusterRoleBindings: ResourceType = builtin({
  group: G,
  version: 'v1',
  resource: 'clusterrolebindings',
  kind: 'ClusterRoleBinding',
  namespaced: false,
  ...decoding(`${G}/v1`, 'ClusterRoleBinding'),
  defaults: defaultBinding,
  validate: (obj, ctx) => validateBinding(obj, ctx, false),
});

/**
 * Review APIs are listed in discovery (16 #10, #11). TokenReview, SelfSubjectReview,
 * SubjectAccessReview, SelfSubjectAccessReview and SelfSubjectRulesReview answer (reviews.ts);
 * LocalSubjectAccessReview, and every verb but create, are refused loudly.
 */
function review(
  group: string,
  resource: string,
  kind: string,
  serve?: ResourceType['review'],
  namespaced = false,
): ResourceType {
  return builtin({
    group,
    version: 'v1',
    resource,
    kind,
    namespaced,
    verbs: ['create'],
    storageVersionHash: undefined,
    review: serve,
    notEmulated: serve ? `${resource}.${group} other than create` : `${resource}.${group}`,
  });
}

export const reviewTypes: ResourceType[] = [
  review('authentication.k8s.io', 'selfsubjectreviews', 'SelfSubjectReview', selfSubjectReview),
  review('authentication.k8s.io', 'tokenreviews', 'TokenReview', tokenReview),
  review('authorization.k8s.io', 'localsubjectaccessreviews', 'LocalSubjectAccessReview', undefined, true),
  review(
    'authorization.k8s.io',
    'selfsubjectaccessreviews',
    'SelfSubjectAccessReview',
    selfSubjectAccessReview,
  ),
  review('authorization.k8s.io', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', selfSubjectRulesReview),
  review('authorization.k8s.io', 'subjectaccessreviews', 'SubjectAccessReview', subjectAccessReview),
];
