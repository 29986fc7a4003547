import type { Obj } from './types';

const RBAC = 'rbac.authorization.k8s.io/v1';
const BOOTSTRAPPING = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];

function clusterRole(
  name: string,
  rules: Obj[] | null,
  extra: { labels?: Obj; aggregateFrom?: string } = {},
): Obj {
  const role: Obj = {
    apiVersion: RBAC,
    kind: 'ClusterRole',
    metadata: { name, labels: { ...BOOTSTRAPPING, ...extra.labels }, annotations: AUTOUPDATE },
    rules,
  };
  if (extra.aggregateFrom) {
    role.aggregationRule = {
      clusterRoleSelectors: [
        { matchLabels: { [`rbac.authorization.k8s.io/${extra.aggregateFrom}`]: 'true' } },
      ],
    };
  }
  return role;
}

function clusterRoleBinding(name: string, groups: string[]): Obj {
  return {
    apiVersion: RBAC,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: BOOTSTRAPPING, annotations: AUTOUPDATE },
    subjects: groups.map((g) => ({ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: g })),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
  };
}

/**
 * The rules of the built-in `system:aggregate-to-{view,edit,admin}` roles that reach the
 * resources the emulator serves. PARTIAL: the real lists (bootstrappolicy/policy.go) also cover
 * apps, autoscaling, networking, policy, discovery and more, and rules added in recent releases
 * (status subresources, pods/eviction, serviceaccounts/token); those are left out here, so
 * `view`/`edit`/`admin` grant less in the emulator than in a real cluster, never more.
 */
const AGGREGATE_TO_VIEW: Obj[] = [
  {
    apiGroups: [''],
    resources: [
      'configmaps',
      'endpoints',
      'persistentvolumeclaims',
      'pods',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'serviceaccounts',
      'services',
    ],
    verbs: READ,
  },
  {
    apiGroups: [''],
    resources: [
      'bindings',
      'events',
      'limitranges',
      'namespaces/status',
      'pods/log',
      'pods/status',
      'replicationcontrollers/status',
      'resourcequotas',
      'resourcequotas/status',
    ],
    verbs: READ,
  },
  { apiGroups: [''], resources: ['namespaces'], verbs: READ },
  { apiGroups: ['batch'], resources: ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], verbs: READ },
];

const AGGREGATE_TO_EDIT: Obj[] = [
  {
    apiGroups: [''],
    resources: ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'],
    verbs: READ,
  },
  { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
  {
    apiGroups: [''],
    resources: ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'],
    verbs: WRITE,
  },
  {
    apiGroups: [''],
    resources: [
      'configmaps',
      'events',
      'persistentvolumeclaims',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'secrets',
      'serviceaccounts',
      'services',
      'services/proxy',
    ],
    verbs: WRITE,
  },
  { apiGroups: ['batch'], resources: ['cronjobs', 'jobs'], verbs: WRITE },
];

const AGGREGATE_TO_ADMIN: Obj[] = [
  { apiGroups: ['authorization.k8s.io'], resources: ['localsubjectaccessreviews'], verbs: ['create'] },
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['rolebindings', 'roles'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  },
];

/**
 * The part of kube-apiserver v1.32's bootstrap RBAC policy (bootstrappolicy/policy.go) that
 * clients of the emulated APIs meet:
 * - `cluster-admin` (everything, bound to system:masters);
 * - the user-facing `admin`, `edit`, `view`, whose rules the ClusterRole aggregation controller
 *   fills from every ClusterRole labelled `rbac.authorization.k8s.io/aggregate-to-<role>: "true"`
 *   (view aggregates into edit, edit into admin); the built-in rules come from the
 *   `system:aggregate-to-*` roles, whose lists here are PARTIAL (see AGGREGATE_TO_VIEW);
 * - `system:basic-user` (SelfSubjectReview, SelfSubjectAccessReview, SelfSubjectRulesReview for
 *   every authenticated user; 12-auth #12, #13, #32);
 * - `system:discovery` (/api, /apis, /openapi, /version… for authenticated users),
 *   `system:public-info-viewer` (/healthz, /livez, /readyz, /version for everyone, anonymous too),
 *   `system:service-account-issuer-discovery` (the OIDC documents, for ServiceAccounts): their
 *   URLs as 12-auth #32 records them;
 * - `system:auth-delegator` (TokenReview and SubjectAccessReview, for a service that delegates
 *   authentication and authorization to the API server), not bound to anyone.
 * The recorded server also had OpenShift's `system:openshift:public-info-viewer`
 * (/.well-known/*): not Kubernetes, left out.
 */
export const BOOTSTRAP_POLICY: { resource: string; object: Obj }[] = [
  {
    resource: 'clusterroles',
    object: clusterRole('cluster-admin', [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ]),
  },
  { resource: 'clusterroles', object: clusterRole('admin', null, { aggregateFrom: 'aggregate-to-admin' }) },
  {
    resource: 'clusterroles',
    object: clusterRole('edit', null, {
      aggregateFrom: 'aggregate-to-edit',
      labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' },
    }),
  },
  {
    resource: 'clusterroles',
    object: clusterRole('view', null, {
      aggregateFrom: 'aggregate-to-view',
      labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
    }),
  },
  {
    resource: 'clusterroles',
    object: clusterRole('system:aggregate-to-admin', AGGREGATE_TO_ADMIN, {
      labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' },
    }),
  },
  {
    resource: 'clusterroles',
    object: clusterRole('system:aggregate-to-edit', AGGREGATE_TO_EDIT, {
      labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
    }),
  },
  {
    resource: 'clusterroles',
    object: clusterRole('system:aggregate-to-view', AGGREGATE_TO_VIEW, {
      labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
    }),
  },
  {
    resource: 'clusterroles',
    object: clusterRole('system:auth-delegator', [
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ]),
  },
  {
    resource: 'clusterroles',
    object: clusterRole('system:basic-user', [
      {
        verbs: ['create'],
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      },
      { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
    ]),
  },
  {
    resource: 'clusterroles',
    object: clusterRole('system:discovery', [
      {
        verbs: ['get'],
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
      },
    ]),
  },
  {
    resource: 'clusterroles',
    object: clusterRole('system:public-info-viewer', [
      { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
    ]),
  },
  {
    resource: 'clusterroles',
    object: clusterRole('system:service-account-issuer-discovery', [
      {
        verbs: ['get'],
        nonResourceURLs: [
          '/.well-known/openid-configuration',
          '/.well-known/openid-configuration/',
          '/openid/v1/jwks',
          '/openid/v1/jwks/',
        ],
      },
    ]),
  },
  { resource: 'clusterrolebindings', object: clusterRoleBinding('cluster-admin', ['system:masters']) },
  {
    resource: 'clusterrolebindings',
    object: clusterRoleBinding('system:basic-user', ['system:authenticated']),
  },
  {
    resource: 'clusterrolebindings',
    object: clusterRoleBinding('system:discovery', ['system:authenticated']),
  },
  {
    resource: 'clusterrolebindings',
    object: clusterRoleBinding('system:public-info-viewer', [
      'system:authenticated',
      'system:unauthenticated',
    ]),
  },
  {
    resource: 'clusterrolebindings',
    object: clusterRoleBinding('system:service-account-issuer-discovery', ['system:serviceaccounts']),
  },
];
