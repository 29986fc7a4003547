import { KubeEmulator } from '../support/kube/emulator';
import type { Obj } from '../support/kube/types';

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
});
