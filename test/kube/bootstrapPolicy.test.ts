/**
 * The bootstrap RBAC policy the emulated cluster starts with (bootstrappolicy/policy.go, partial
 * built-in rule lists) and the ClusterRole aggregation controller keeping admin/edit/view filled:
 * what a chart's `aggregate-to-*` labelled ClusterRoles rely on.
 */
import { KubeEmulator } from '../support/kube/emulator';
import type { Obj } from '../support/kube/types';
import { call, createRbac, RBAC, sar } from './authSupport';

const label = (role: 'view' | 'edit' | 'admin') => ({
  [`rbac.authorization.k8s.io/aggregate-to-${role}`]: 'true',
});

const crondeckRole = (name: string, verbs: string[], labels: Obj) => ({
  kind: 'ClusterRole',
  metadata: { name, labels },
  rules: [{ apiGroups: ['crondeck.dev'], resources: ['scheduledjobs', 'alertconfigs'], verbs }],
});

describe('the bootstrap policy and ClusterRole aggregation', () => {
  let emu: KubeEmulator;
  beforeEach(async () => {
    emu = await KubeEmulator.start();
    await call(emu, 'POST', '/api/v1/namespaces', { metadata: { name: 'team-a' } });
  });
  afterEach(() => emu.stop());

  const may = async (
    user: string,
    verb: string,
    resource: string,
    group = 'crondeck.dev',
    namespace = 'team-a',
  ) =>
    (
      await sar(emu, {
        user,
        groups: ['system:authenticated'],
        resourceAttributes: { verb, group, resource, namespace },
      })
    ).allowed as boolean;

  test('the built-in roles and bindings exist, labelled as the bootstrapper labels them', async () => {
    const roles = (await call(emu, 'GET', `${RBAC}/clusterroles`)).body.items as Obj[];
    expect(roles.map((r) => r.metadata.name)).toEqual(
      expect.arrayContaining([
        'admin',
        'cluster-admin',
        'edit',
        'system:aggregate-to-admin',
        'system:aggregate-to-edit',
        'system:aggregate-to-view',
        'system:auth-delegator',
        'system:basic-user',
        'system:discovery',
        'system:public-info-viewer',
        'system:service-account-issuer-discovery',
        'view',
      ]),
    );
    const edit = roles.find((r) => r.metadata.name === 'edit')!;
    expect(edit.metadata.labels).toEqual({
      'kubernetes.io/bootstrapping': 'rbac-defaults',
      'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
    });
    expect(edit.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: label('edit') }] });
    const bindings = (await call(emu, 'GET', `${RBAC}/clusterrolebindings`)).body.items as Obj[];
    expect(
      Object.fromEntries(bindings.map((b) => [b.metadata.name, (b.subjects as Obj[]).map((s) => s.name)])),
    ).toEqual({
      'cluster-admin': ['system:masters'],
      'system:basic-user': ['system:authenticated'],
      'system:discovery': ['system:authenticated'],
      'system:public-info-viewer': ['system:authenticated', 'system:unauthenticated'],
      'system:service-account-issuer-discovery': ['system:serviceaccounts'],
    });
  });

  test('admin, edit and view are aggregated before the first request, as kube-controller-manager has them', async () => {
    const fresh = await KubeEmulator.start();
    try {
      const view = await call(fresh, 'GET', `${RBAC}/clusterroles/view`);
      expect(view.body.rules).toContainEqual({
        apiGroups: [''],
        resources: ['namespaces'],
        verbs: ['get', 'list', 'watch'],
      });
      const admin = await call(fresh, 'GET', `${RBAC}/clusterroles/admin`);
      expect((admin.body.rules as Obj[]).length).toBeGreaterThan((view.body.rules as Obj[]).length);
    } finally {
      await fresh.stop();
    }
  });

  test('view, edit and admin hold the built-in rules from the start, each more than the one before', async () => {
    await emu.grant({ kind: 'User', name: 'viewer' }, { clusterRole: 'view', namespace: 'team-a' });
    await emu.grant({ kind: 'User', name: 'editor' }, { clusterRole: 'edit', namespace: 'team-a' });
    await emu.grant({ kind: 'User', name: 'boss' }, { clusterRole: 'admin', namespace: 'team-a' });
    const table = async (verb: string, resource: string, group = '') => [
      await may('viewer', verb, resource, group),
      await may('editor', verb, resource, group),
      await may('boss', verb, resource, group),
    ];
    expect(await table('list', 'pods')).toEqual([true, true, true]);
    expect(await table('get', 'secrets')).toEqual([false, true, true]);
    expect(await table('create', 'cronjobs', 'batch')).toEqual([false, true, true]);
    expect(await table('create', 'rolebindings', 'rbac.authorization.k8s.io')).toEqual([false, false, true]);
    expect(await table('get', 'scheduledjobs', 'crondeck.dev')).toEqual([false, false, false]);
  });

  test('a ClusterRole labelled aggregate-to-edit grants its rules to edit and admin, not view, also when created or changed later', async () => {
    await emu.grant({ kind: 'User', name: 'viewer' }, { clusterRole: 'view', namespace: 'team-a' });
    await emu.grant({ kind: 'User', name: 'editor' }, { clusterRole: 'edit', namespace: 'team-a' });
    await emu.grant({ kind: 'User', name: 'boss' }, { clusterRole: 'admin', namespace: 'team-a' });
    const all = async (verb: string) => [
      await may('viewer', verb, 'scheduledjobs'),
      await may('editor', verb, 'scheduledjobs'),
      await may('boss', verb, 'scheduledjobs'),
    ];

    await createRbac(emu, crondeckRole('crondeck-view', ['get', 'list', 'watch'], label('view')));
    await createRbac(emu, crondeckRole('crondeck-edit', ['create', 'update'], label('edit')));
    expect(await all('list')).toEqual([true, true, true]);
    expect(await all('create')).toEqual([false, true, true]);
    expect(await all('delete')).toEqual([false, false, false]);

    // A new rule in the labelled role reaches the aggregates.
    const changed = await call(emu, 'PATCH', `${RBAC}/clusterroles/crondeck-edit`, {
      rules: [
        { apiGroups: ['crondeck.dev'], resources: ['scheduledjobs'], verbs: ['create', 'update', 'delete'] },
      ],
    });
    expect(changed.status).toBe(200);
    expect(await all('delete')).toEqual([false, true, true]);
    const edit = (await call(emu, 'GET', `${RBAC}/clusterroles/edit`)).body;
    expect(edit.rules).toContainEqual({
      apiGroups: ['crondeck.dev'],
      resources: ['scheduledjobs'],
      verbs: ['create', 'update', 'delete'],
    });

    // Losing the label, or the role, takes the rules away again.
    await call(emu, 'PATCH', `${RBAC}/clusterroles/crondeck-edit`, { metadata: { labels: null } });
    expect(await all('create')).toEqual([false, false, false]);
    expect((await call(emu, 'DELETE', `${RBAC}/clusterroles/crondeck-view`)).status).toBe(200);
    expect(await all('list')).toEqual([false, false, false]);
  });

  test('a ClusterRoleBinding to edit grants it in every namespace; a RoleBinding only in its own', async () => {
    await createRbac(emu, crondeckRole('crondeck-edit', ['create'], label('edit')));
    await call(emu, 'POST', '/api/v1/namespaces', { metadata: { name: 'team-b' } });
    await emu.grant({ kind: 'Group', name: 'platform' }, { clusterRole: 'edit' });
    await emu.grant({ kind: 'Group', name: 'team-a-devs' }, { clusterRole: 'edit', namespace: 'team-a' });
    const create = async (groups: string[], namespace: string) =>
      (
        await sar(emu, {
          user: 'someone',
          groups,
          resourceAttributes: { verb: 'create', group: 'crondeck.dev', resource: 'scheduledjobs', namespace },
        })
      ).allowed as boolean;
    expect(await create(['platform'], 'team-b')).toBe(true);
    expect(await create(['team-a-devs'], 'team-a')).toBe(true);
    expect(await create(['team-a-devs'], 'team-b')).toBe(false);
  });

  test('the public and discovery URLs, and TokenReview/SubjectAccessReview through system:auth-delegator', async () => {
    const path = async (groups: string[], p: string) =>
      (await sar(emu, { user: 'x', groups, nonResourceAttributes: { verb: 'get', path: p } }))
        .allowed as boolean;
    expect(await path(['system:unauthenticated'], '/readyz')).toBe(true);
    expect(await path(['system:unauthenticated'], '/version/')).toBe(true);
    expect(await path(['system:unauthenticated'], '/apis')).toBe(false);
    expect(await path(['system:authenticated'], '/apis/crondeck.dev/v1alpha1')).toBe(true);
    expect(await path(['system:authenticated'], '/openapi/v3')).toBe(true);
    expect(await path(['system:authenticated'], '/openid/v1/jwks')).toBe(false);
    expect(await path(['system:serviceaccounts'], '/openid/v1/jwks')).toBe(true);

    const service = await emu.serviceAccountToken('team-a', 'crondeck-api');
    const review = (token: string) =>
      call(emu, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token: 'x' } }, token);
    expect((await review(service.token)).body.message).toBe(
      'tokenreviews.authentication.k8s.io is forbidden: User "system:serviceaccount:team-a:crondeck-api" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope',
    );
    await emu.grant(
      { kind: 'ServiceAccount', name: 'crondeck-api', namespace: 'team-a' },
      { clusterRole: 'system:auth-delegator' },
    );
    expect((await review(service.token)).status).toBe(201);
  });
});
