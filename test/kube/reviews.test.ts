import { KubeEmulator } from '../support/kube/emulator';
import type { Obj } from '../support/kube/types';
import { call as request } from './authSupport';

/** Token audiences and access reviews beyond what 12-auth replays. */
describe('tokens and access reviews', () => {
  let emu: KubeEmulator;
  beforeEach(async () => {
    emu = await KubeEmulator.start();
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'ops' } });
  });
  afterEach(() => emu.stop());

  async function call(method: string, path: string, body?: unknown, token = emu.adminToken) {
    const res = await fetch(`${emu.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Obj };
  }

  const tokenFor = async (audiences?: string[]) =>
    (
      await call('POST', '/api/v1/namespaces/ops/serviceaccounts/default/token', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: audiences ? { audiences } : {},
      })
    ).body.status.token as string;

  test('a token for another audience is reviewed for it, but the API server does not take it', async () => {
    const token = await tokenFor(['crondeck']);
    const review = await call('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      spec: { token, audiences: ['other', 'crondeck'] },
    });
    expect(review.body.status).toMatchObject({
      authenticated: true,
      user: { username: 'system:serviceaccount:ops:default' },
      audiences: ['crondeck'],
    });
    expect((await call('GET', '/api/v1/namespaces/ops/pods', undefined, token)).status).toBe(401);
    const own = await tokenFor();
    const self = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {}, own);
    expect(self.status).toBe(201);
    expect(self.body.status.userInfo.uid).toBe(emu.objects('serviceaccounts', 'ops')[0]!.metadata.uid);
  });

  test('access reviews: system:masters without a reason, nonResourceURLs by RBAC, ClusterRoleBindings described', async () => {
    const sar = (spec: Obj) => call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { spec });
    const health = { nonResourceAttributes: { path: '/healthz/ready', verb: 'get' } };
    expect((await sar({ user: 'root', groups: ['system:masters'], ...health })).body.status).toEqual({
      allowed: true,
    });
    expect((await sar({ user: 'probe', ...health })).body.status).toEqual({ allowed: false });
    await call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'health' },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }],
    });
    await call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'health-probe' },
      subjects: [{ kind: 'User', name: 'probe' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'health' },
    });
    expect((await sar({ user: 'probe', ...health })).body.status).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "health-probe" of ClusterRole "health" to User "probe"',
    });
    const elsewhere = { nonResourceAttributes: { path: '/metrics', verb: 'get' } };
    expect((await sar({ user: 'probe', ...elsewhere })).body.status).toEqual({ allowed: false });
  });

  test('SubjectAccessReview and SelfSubjectAccessReview validation: 422 texts of pkg/apis/authorization/validation', async () => {
    const post = (resource: string, spec: Obj, token?: string) =>
      call('POST', `/apis/authorization.k8s.io/v1/${resource}`, { spec }, token);
    const nobody = await post('subjectaccessreviews', {});
    expect(nobody.status).toBe(422);
    expect(nobody.body.message).toBe(
      'SubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );
    expect(nobody.body.details).toEqual({
      group: 'authorization.k8s.io',
      kind: 'SubjectAccessReview',
      causes: [
        {
          reason: 'FieldValueInvalid',
          message:
            'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
          field: 'spec.resourceAttributes',
        },
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "": at least one of user or group must be specified',
          field: 'spec.user',
        },
      ],
    });
    const both = await post('selfsubjectaccessreviews', {
      resourceAttributes: { verb: 'get', resource: 'pods' },
      nonResourceAttributes: { verb: 'get', path: '/healthz' },
    });
    expect(both.body.message).toBe(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    );
    // Groups alone name a subject.
    const groupsOnly = await post('subjectaccessreviews', {
      groups: ['system:masters'],
      resourceAttributes: { verb: 'delete', resource: 'namespaces' },
    });
    expect(groupsOnly.body.status).toEqual({ allowed: true });
  });

  test('SelfSubjectRulesReview: the rules in a namespace, aggregated roles and resolution errors included', async () => {
    const creds = await emu.serviceAccountToken('ops', 'dashboard', {
      grants: [{ clusterRole: 'view', namespace: 'ops' }],
    });
    await call('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/ops/rolebindings', {
      metadata: { name: 'dangling' },
      subjects: [{ kind: 'ServiceAccount', name: 'dashboard', namespace: 'ops' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'nope' },
    });
    const review = (namespace: string, token = creds.token) =>
      call('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace } }, token);
    const answer = await review('ops');
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      kind: 'SelfSubjectRulesReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: {},
      status: { incomplete: false, evaluationError: 'role.rbac.authorization.k8s.io "nope" not found' },
    });
    const rules = answer.body.status.resourceRules as Obj[];
    expect(rules).toContainEqual({
      verbs: ['create'],
      apiGroups: ['authentication.k8s.io'],
      resources: ['selfsubjectreviews'],
    });
    expect(rules).toContainEqual({
      apiGroups: [''],
      resources: ['namespaces'],
      verbs: ['get', 'list', 'watch'],
    });
    expect(answer.body.status.nonResourceRules).toContainEqual({
      verbs: ['get'],
      nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'],
    });
    // In another namespace only the cluster-wide rules apply.
    const elsewhere = (await review('kube-system')).body.status;
    expect(elsewhere.resourceRules).toHaveLength(2);
    expect(elsewhere.evaluationError).toBeUndefined();
    expect((await review('')).body).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'no namespace on request',
    });
    // system:basic-user is for the authenticated: anonymous may not ask.
    const anonymous = await request(
      emu,
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      {
        spec: { namespace: 'ops' },
      },
      null,
    );
    expect(anonymous.body.message).toBe(
      'selfsubjectrulesreviews.authorization.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectrulesreviews" in API group "authorization.k8s.io" at the cluster scope',
    );
  });

  test('serviceAccountToken() makes a bound ServiceAccount whose SelfSubjectAccessReview names the binding', async () => {
    await call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'crondeck-edit', labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } },
      rules: [{ apiGroups: ['crondeck.dev'], resources: ['scheduledjobs/run'], verbs: ['create'] }],
    });
    const creds = await emu.serviceAccountToken('team-x', 'ci', {
      grants: [{ clusterRole: 'edit', namespace: 'team-x' }],
    });
    expect(creds.username).toBe('system:serviceaccount:team-x:ci');
    const self = await call(
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      {
        spec: {
          resourceAttributes: {
            namespace: 'team-x',
            verb: 'create',
            group: 'crondeck.dev',
            resource: 'scheduledjobs',
            subresource: 'run',
          },
        },
      },
      creds.token,
    );
    expect(self.body.status).toEqual({
      allowed: true,
      reason: expect.stringMatching(
        /^RBAC: allowed by RoleBinding "test-grant-\w{5}\/team-x" of ClusterRole "edit" to ServiceAccount "ci\/team-x"$/,
      ),
    });
  });
});
