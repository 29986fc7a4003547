/**
 * The emulator's RBAC authorizer against what kube-apiserver v1.32 does beyond 12-auth: the
 * matching of plugin/pkg/auth/authorizer/rbac (rule.go appliesTo, evaluation_helpers.go
 * VerbMatches / APIGroupMatches / ResourceMatches / ResourceNameMatches / NonResourceURLMatches),
 * the reasons it gives, and the 403 texts of the authorization filter (responsewriters.Forbidden).
 */
import type { Attributes } from '../support/kube/auth';
import { ruleAllows } from '../support/kube/builtins/authorizer';
import { KubeEmulator } from '../support/kube/emulator';
import type { Obj } from '../support/kube/types';
import { call, createRbac, sar } from './authSupport';

const CRONDECK_EDIT = {
  kind: 'ClusterRole',
  metadata: { name: 'crondeck-edit' },
  rules: [
    {
      apiGroups: ['crondeck.dev'],
      resources: ['scheduledjobs', 'scheduledjobs/run', 'alertconfigs'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    },
  ],
};

const scheduledJobs = (verb: string, namespace?: string, subresource?: string): Obj => ({
  resourceAttributes: { verb, group: 'crondeck.dev', resource: 'scheduledjobs', namespace, subresource },
});

describe('the RBAC authorizer', () => {
  let emu: KubeEmulator;
  beforeEach(async () => {
    emu = await KubeEmulator.start();
    for (const name of ['team-a', 'team-b'])
      await call(emu, 'POST', '/api/v1/namespaces', { metadata: { name } });
  });
  afterEach(() => emu.stop());

  test('a RoleBinding to a ClusterRole grants its rules in the binding’s namespace only', async () => {
    await createRbac(emu, CRONDECK_EDIT);
    await createRbac(emu, {
      kind: 'RoleBinding',
      metadata: { name: 'alice-edit', namespace: 'team-a' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'crondeck-edit' },
    });
    const alice = { user: 'alice', groups: ['system:authenticated'] };
    expect(await sar(emu, { ...alice, ...scheduledJobs('create', 'team-a') })).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "alice-edit/team-a" of ClusterRole "crondeck-edit" to User "alice"',
    });
    expect(await sar(emu, { ...alice, ...scheduledJobs('create', 'team-a', 'run') })).toMatchObject({
      allowed: true,
    });
    expect(await sar(emu, { ...alice, ...scheduledJobs('create', 'team-b') })).toEqual({ allowed: false });
    expect(await sar(emu, { ...alice, ...scheduledJobs('list') })).toEqual({ allowed: false });
  });

  test('subjects: Users, Groups, and ServiceAccounts by name (a binding’s own namespace by default) or by their groups', async () => {
    await createRbac(emu, CRONDECK_EDIT);
    const ref = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'crondeck-edit' };
    await createRbac(emu, {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'oncall' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'oncall' }],
      roleRef: ref,
    });
    await createRbac(emu, {
      kind: 'RoleBinding',
      metadata: { name: 'runner', namespace: 'team-a' },
      subjects: [{ kind: 'ServiceAccount', name: 'runner' }],
      roleRef: ref,
    });
    await createRbac(emu, {
      kind: 'RoleBinding',
      metadata: { name: 'all-sas', namespace: 'team-b' },
      subjects: [
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccounts:team-b' },
      ],
      roleRef: ref,
    });
    const sa = (ns: string, name: string) => ({
      user: `system:serviceaccount:${ns}:${name}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
    });

    expect(await sar(emu, { user: 'bob', groups: ['oncall'], ...scheduledJobs('list') })).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "oncall" of ClusterRole "crondeck-edit" to Group "oncall"',
    });
    expect(await sar(emu, { groups: ['oncall'], ...scheduledJobs('get', 'team-b') })).toMatchObject({
      allowed: true,
    });
    expect(await sar(emu, { ...sa('team-a', 'runner'), ...scheduledJobs('get', 'team-a') })).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "runner/team-a" of ClusterRole "crondeck-edit" to ServiceAccount "runner/team-a"',
    });
    // The same name in another namespace is another ServiceAccount.
    expect(await sar(emu, { ...sa('team-b', 'runner'), ...scheduledJobs('get', 'team-a') })).toEqual({
      allowed: false,
    });
    expect(await sar(emu, { ...sa('team-b', 'anyone'), ...scheduledJobs('get', 'team-b') })).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "all-sas/team-b" of ClusterRole "crondeck-edit" to Group "system:serviceaccounts:team-b"',
    });
    expect(await sar(emu, { ...sa('team-a', 'anyone'), ...scheduledJobs('get', 'team-b') })).toEqual({
      allowed: false,
    });
  });

  test('rule matching follows evaluation_helpers.go: wildcards, literal and */ subresources, resource names', () => {
    const a = (resource: string, extra: Partial<Attributes> = {}): Attributes => ({
      verb: 'create',
      group: 'crondeck.dev',
      resource,
      ...extra,
    });
    const run = a('scheduledjobs', { subresource: 'run' });
    const rule = (resources: string[], more: Obj = {}) => ({
      apiGroups: ['crondeck.dev'],
      resources,
      verbs: ['create'],
      ...more,
    });
    expect(ruleAllows(rule(['scheduledjobs/run']), run)).toBe(true);
    expect(ruleAllows(rule(['*/run']), run)).toBe(true);
    expect(ruleAllows(rule(['*']), run)).toBe(true);
    expect(ruleAllows(rule(['scheduledjobs']), run)).toBe(false);
    expect(ruleAllows(rule(['scheduledjobs/*']), run)).toBe(false);
    expect(ruleAllows(rule(['*/status']), run)).toBe(false);
    expect(ruleAllows(rule(['*/run']), a('scheduledjobs'))).toBe(false);
    expect(ruleAllows(rule(['scheduledjobs/run']), a('scheduledjobs'))).toBe(false);
    expect(ruleAllows({ ...rule(['*']), apiGroups: ['*'], verbs: ['*'] }, a('pods', { group: '' }))).toBe(
      true,
    );
    expect(ruleAllows(rule(['scheduledjobs']), a('scheduledjobs', { group: 'other.dev' }))).toBe(false);
    expect(ruleAllows({ ...rule(['scheduledjobs']), apiGroups: [''] }, a('scheduledjobs'))).toBe(false);
    const named = rule(['scheduledjobs'], { resourceNames: ['nightly'] });
    expect(ruleAllows(named, a('scheduledjobs', { name: 'nightly' }))).toBe(true);
    expect(ruleAllows(named, a('scheduledjobs', { name: 'hourly' }))).toBe(false);
    expect(ruleAllows(named, a('scheduledjobs'))).toBe(false);
    // A resource rule never matches a non-resource request, nor the other way round.
    expect(
      ruleAllows(
        { ...rule(['*']), apiGroups: ['*'] },
        { verb: 'create', path: '/x', group: '', resource: '' },
      ),
    ).toBe(false);
    expect(ruleAllows({ nonResourceURLs: ['*'], verbs: ['*'] }, run)).toBe(false);
  });

  test('resourceNames reach a list narrowed by fieldSelector=metadata.name, as RequestInfo names it', async () => {
    await call(emu, 'POST', '/api/v1/namespaces/team-a/configmaps', { metadata: { name: 'nightly' } });
    await createRbac(emu, {
      kind: 'Role',
      metadata: { name: 'one-map', namespace: 'team-a' },
      rules: [
        { apiGroups: [''], resources: ['configmaps'], resourceNames: ['nightly'], verbs: ['get', 'list'] },
      ],
    });
    await createRbac(emu, {
      kind: 'RoleBinding',
      metadata: { name: 'carol', namespace: 'team-a' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'carol' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'one-map' },
    });
    const carol = emu.userToken('carol');
    const maps = '/api/v1/namespaces/team-a/configmaps';
    expect((await call(emu, 'GET', `${maps}/nightly`, undefined, carol)).status).toBe(200);
    expect(
      (await call(emu, 'GET', `${maps}?fieldSelector=metadata.name%3Dnightly`, undefined, carol)).status,
    ).toBe(200);
    const all = await call(emu, 'GET', maps, undefined, carol);
    expect(all.status).toBe(403);
    const other = await call(emu, 'GET', `${maps}?fieldSelector=metadata.name%3Dother`, undefined, carol);
    expect(other.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'configmaps "other" is forbidden: User "carol" cannot list resource "configmaps" in API group "" in the namespace "team-a"',
      reason: 'Forbidden',
      details: { name: 'other', kind: 'configmaps' },
      code: 403,
    });
  });

  test('nonResourceURLs: exact, a trailing * as a prefix, * verbs; only ClusterRoleBindings grant them', async () => {
    await createRbac(emu, {
      kind: 'ClusterRole',
      metadata: { name: 'paths' },
      rules: [{ nonResourceURLs: ['/metrics', '/logs/*'], verbs: ['*'] }],
    });
    await createRbac(emu, {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'scraper' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'scraper' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'paths' },
    });
    await createRbac(emu, {
      kind: 'RoleBinding',
      metadata: { name: 'local', namespace: 'team-a' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'local' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'paths' },
    });
    const path = async (user: string, p: string, verb = 'get') =>
      (await sar(emu, { user, nonResourceAttributes: { path: p, verb } })).allowed as boolean;
    expect(await path('scraper', '/metrics')).toBe(true);
    expect(await path('scraper', '/metrics', 'post')).toBe(true);
    expect(await path('scraper', '/metrics/')).toBe(false);
    expect(await path('scraper', '/logs/a/b')).toBe(true);
    expect(await path('scraper', '/logs/')).toBe(true);
    expect(await path('scraper', '/logs')).toBe(false);
    expect(await path('local', '/metrics')).toBe(false);
  });

  test('bindings to missing roles: their errors aggregated (deduplicated) in the reason and after every 403', async () => {
    const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
    const subjects = [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'dave' }];
    await createRbac(emu, {
      kind: 'RoleBinding',
      metadata: { name: 'a', namespace: 'team-a' },
      subjects,
      roleRef: ref('Role', 'gone'),
    });
    await createRbac(emu, {
      kind: 'RoleBinding',
      metadata: { name: 'b', namespace: 'team-a' },
      subjects,
      roleRef: ref('Role', 'gone'),
    });
    await createRbac(emu, {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'dave-c' },
      subjects,
      roleRef: ref('ClusterRole', 'nowhere'),
    });
    const errors =
      '[clusterrole.rbac.authorization.k8s.io "nowhere" not found, role.rbac.authorization.k8s.io "gone" not found]';
    expect(await sar(emu, { user: 'dave', ...scheduledJobs('get', 'team-a') })).toEqual({
      allowed: false,
      reason: `RBAC: ${errors}`,
    });
    // Outside the namespace only the ClusterRoleBinding's error is met: one error, no brackets.
    expect(await sar(emu, { user: 'dave', ...scheduledJobs('get', 'team-b') })).toEqual({
      allowed: false,
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "nowhere" not found',
    });
    const denied = await call(
      emu,
      'GET',
      '/api/v1/namespaces/team-a/configmaps',
      undefined,
      emu.userToken('dave'),
    );
    expect(denied.body.message).toBe(
      `configmaps is forbidden: User "dave" cannot list resource "configmaps" in API group "" in the namespace "team-a": RBAC: ${errors}`,
    );
  });

  test('non-resource requests are authorized too: discovery for the authenticated, /version for everyone', async () => {
    const erin = emu.userToken('erin');
    const forbiddenPath = (user: string, path: string) => ({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `forbidden: User "${user}" cannot get path "${path}"`,
      reason: 'Forbidden',
      details: {},
      code: 403,
    });
    expect((await call(emu, 'GET', '/apis', undefined, null)).body).toEqual(
      forbiddenPath('system:anonymous', '/apis'),
    );
    expect((await call(emu, 'GET', '/openapi/v3', undefined, null)).status).toBe(403);
    expect((await call(emu, 'GET', '/version', undefined, null)).status).toBe(200);
    // Allowed by system:public-info-viewer; the emulator serves no health endpoints.
    expect((await call(emu, 'GET', '/healthz', undefined, null)).status).toBe(404);
    expect((await call(emu, 'GET', '/apis', undefined, erin)).status).toBe(200);
    expect((await call(emu, 'GET', '/api/v1', undefined, erin)).status).toBe(200);
    expect((await call(emu, 'GET', '/metrics', undefined, erin)).body).toEqual(
      forbiddenPath('erin', '/metrics'),
    );
    // The message is sanitized so that it cannot read as HTML.
    expect((await call(emu, 'GET', '/a%3Cb%3E&', undefined, erin)).body.message).toBe(
      'forbidden: User "erin" cannot get path "/a&lt;b&gt;&amp;"',
    );
  });

  test('a request for a namespace itself is in that namespace: a RoleBinding there lets one read it', async () => {
    const frank = emu.userToken('frank');
    const denied = await call(emu, 'GET', '/api/v1/namespaces/team-a', undefined, frank);
    expect(denied.body).toMatchObject({
      message:
        'namespaces "team-a" is forbidden: User "frank" cannot get resource "namespaces" in API group "" in the namespace "team-a"',
      details: { name: 'team-a', kind: 'namespaces' },
    });
    await emu.grant({ kind: 'User', name: 'frank' }, { clusterRole: 'view', namespace: 'team-a' });
    expect((await call(emu, 'GET', '/api/v1/namespaces/team-a', undefined, frank)).status).toBe(200);
    expect((await call(emu, 'GET', '/api/v1/namespaces/team-b', undefined, frank)).status).toBe(403);
    expect((await call(emu, 'GET', '/api/v1/namespaces', undefined, frank)).body.message).toBe(
      'namespaces is forbidden: User "frank" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
  });

  test('authorization comes before routing: a forbidden caller learns nothing of what is served', async () => {
    const gina = emu.userToken('gina');
    const unknown = await call(
      emu,
      'GET',
      '/apis/nothing.example/v1/namespaces/team-a/widgets',
      undefined,
      gina,
    );
    expect(unknown.status).toBe(403);
    expect(unknown.body.message).toBe(
      'widgets.nothing.example is forbidden: User "gina" cannot list resource "widgets" in API group "nothing.example" in the namespace "team-a"',
    );
    expect((await call(emu, 'GET', '/apis/nothing.example/v1/namespaces/team-a/widgets')).status).toBe(404);
  });

  test('the allowRules test hook still grants before RBAC is asked', async () => {
    const hank = emu.userToken('hank');
    const maps = '/api/v1/namespaces/team-a/configmaps';
    expect((await call(emu, 'GET', maps, undefined, hank)).status).toBe(403);
    emu.allowRules.push({ user: 'hank', verbs: ['list'], resources: ['configmaps'], namespaces: ['team-a'] });
    expect((await call(emu, 'GET', maps, undefined, hank)).status).toBe(200);
    expect((await call(emu, 'GET', '/api/v1/namespaces/team-b/configmaps', undefined, hank)).status).toBe(
      403,
    );
  });
});
