import type { Obj } from './types';

const RBAC = 'rbac.authorization.k8s.io/v1';
const BOOTSTRAP = {
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
};

/**
 * The part of the API server's bootstrap RBAC policy that the emulated APIs need:
 * system:basic-user lets every authenticated user ask about itself (SelfSubjectReview,
 * SelfSubjectAccessReview and SelfSubjectRulesReview; 12-auth #12, #13 as a ServiceAccount).
 */
export const BOOTSTRAP_POLICY: { resource: string; object: Obj }[] = [
  {
    resource: 'clusterroles',
    object: {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'system:basic-user', ...BOOTSTRAP },
      rules: [
        {
          verbs: ['create'],
          apiGroups: ['authorization.k8s.io'],
          resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        },
        { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
      ],
    },
  },
  {
    resource: 'clusterrolebindings',
    object: {
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:basic-user', ...BOOTSTRAP },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:basic-user' },
    },
  },
];
