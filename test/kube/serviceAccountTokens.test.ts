/**
 * Bearer tokens as kube-apiserver v1.32 takes them, beyond 12-auth (#4–#10, #20, #21 recorded):
 * TokenRequest tokens are signed JWTs bound to audiences, a lifetime (go-jose's one minute of
 * leeway) and the ServiceAccount's uid (pkg/serviceaccount jwt.go, claims.go); a header that is
 * not `Bearer <token>` is anonymous (bearertoken.go); anything else is 401.
 */
import { KubeEmulator } from '../support/kube/emulator';
import type { Obj } from '../support/kube/types';
import { call, tokenReview } from './authSupport';

const REVIEW_ERROR = (why: string) => ({ user: {}, error: `[invalid bearer token, ${why}]` });

describe('ServiceAccount tokens and other bearer tokens', () => {
  let emu: KubeEmulator;
  let now: number;
  beforeEach(async () => {
    now = Date.parse('2026-03-01T10:00:00Z');
    emu = await KubeEmulator.start({ now: () => new Date(now) });
  });
  afterEach(() => emu.stop());

  const readConfigMaps = (token: string | null) =>
    call(emu, 'GET', '/api/v1/namespaces/team-a/configmaps', undefined, token);

  test('a TokenRequest token is a compact JWS that names its ServiceAccount, audiences and lifetime', async () => {
    const sa = await emu.serviceAccountToken('team-a', 'runner', { expirationSeconds: 900 });
    const parts = sa.token.split('.');
    expect(parts).toHaveLength(3);
    for (const p of parts) expect(p).toMatch(/^[A-Za-z0-9_-]+$/);
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString()) as Obj;
    expect(claims).toMatchObject({
      aud: ['https://kubernetes.default.svc.cluster.local'],
      iss: 'https://kubernetes.default.svc.cluster.local',
      sub: 'system:serviceaccount:team-a:runner',
      'kubernetes.io': { namespace: 'team-a', serviceaccount: { name: 'runner', uid: sa.uid } },
      iat: now / 1000,
      nbf: now / 1000,
      exp: now / 1000 + 900,
    });
    expect(sa.expirationTimestamp).toBe('2026-03-01T10:15:00Z');
    expect(await tokenReview(emu, sa.token)).toEqual({
      authenticated: true,
      user: {
        username: 'system:serviceaccount:team-a:runner',
        uid: sa.uid,
        groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
      },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
  });

  test('a token is good until a minute past its expiry, then TokenReview and every request refuse it', async () => {
    const sa = await emu.serviceAccountToken('team-a', 'runner', {
      expirationSeconds: 600,
      grants: [{ clusterRole: 'view', namespace: 'team-a' }],
    });
    now += 600_000 + 60_000;
    expect((await tokenReview(emu, sa.token)).authenticated).toBe(true);
    expect((await readConfigMaps(sa.token)).status).toBe(200);
    now += 1000;
    expect(await tokenReview(emu, sa.token)).toEqual(REVIEW_ERROR('service account token has expired'));
    expect((await readConfigMaps(sa.token)).body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });

  test('deleting the ServiceAccount, or re-creating it with a new uid, ends its tokens', async () => {
    const sa = await emu.serviceAccountToken('team-a', 'runner', {
      grants: [{ clusterRole: 'view', namespace: 'team-a' }],
    });
    expect((await readConfigMaps(sa.token)).status).toBe(200);
    expect((await call(emu, 'DELETE', '/api/v1/namespaces/team-a/serviceaccounts/runner')).status).toBe(200);
    expect(await tokenReview(emu, sa.token)).toEqual(REVIEW_ERROR('serviceaccounts "runner" not found'));
    expect((await readConfigMaps(sa.token)).status).toBe(401);

    const again = await call(emu, 'POST', '/api/v1/namespaces/team-a/serviceaccounts', {
      metadata: { name: 'runner' },
    });
    const uid = again.body.metadata.uid as string;
    expect(await tokenReview(emu, sa.token)).toEqual(
      REVIEW_ERROR(`service account UID (${uid}) does not match claim (${sa.uid})`),
    );
    expect((await readConfigMaps(sa.token)).status).toBe(401);
    // The binding names the ServiceAccount, not its uid: a new token works at once.
    const fresh = await emu.serviceAccountToken('team-a', 'runner');
    expect((await readConfigMaps(fresh.token)).status).toBe(200);
  });

  test('audiences: a token for another audience is reviewed for it, the API server refuses it', async () => {
    const sa = await emu.serviceAccountToken('team-a', 'runner', { audiences: ['crondeck', 'other'] });
    expect(await tokenReview(emu, sa.token, ['elsewhere', 'crondeck'])).toMatchObject({
      authenticated: true,
      audiences: ['crondeck'],
    });
    expect(await tokenReview(emu, sa.token)).toEqual(
      REVIEW_ERROR(
        'token audiences ["crondeck" "other"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]',
      ),
    );
    expect((await call(emu, 'GET', '/version', undefined, sa.token)).status).toBe(401);
  });

  test('tokens of any other shape: refused by TokenReview, 401 on requests, never 500', async () => {
    const sa = await emu.serviceAccountToken('team-a', 'runner');
    const [head, body, sig] = sa.token.split('.') as [string, string, string];
    const otherCluster = await KubeEmulator.start();
    let foreign: string;
    try {
      foreign = (await otherCluster.serviceAccountToken('team-a', 'runner')).token;
    } finally {
      await otherCluster.stop();
    }
    const forged = `${head}.${body}.${sig.slice(0, -4)}AAAA`;
    const notOurs = [
      'not-a-token',
      'a.b.c',
      `${head}.${body}`,
      `${'x'.repeat(1024 * 1024)}`,
      '{"iss":1}.a.b',
    ];
    for (const token of notOurs) {
      expect(await tokenReview(emu, token)).toEqual({ user: {}, error: 'invalid bearer token' });
      expect((await readConfigMaps(token)).status).toBe(401);
    }
    expect(await tokenReview(emu, forged)).toEqual(
      REVIEW_ERROR('go-jose/go-jose: error in cryptographic primitive'),
    );
    expect(await tokenReview(emu, foreign)).toEqual(REVIEW_ERROR('invalid signature, no keys found'));
    for (const token of [forged, foreign]) expect((await readConfigMaps(token)).status).toBe(401);

    const empty = await call(emu, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      spec: { token: '' },
    });
    expect(empty.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'token is required for TokenReview in authentication',
      reason: 'BadRequest',
      code: 400,
    });
  });

  test('an Authorization header without a usable bearer token is no credential at all: anonymous', async () => {
    const raw = (authorization: string) =>
      fetch(`${emu.url}/api/v1/namespaces/team-a/configmaps`, { headers: { authorization } });
    for (const header of ['Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Token abc']) {
      const res = await raw(header);
      expect(res.status).toBe(403);
      expect(((await res.json()) as Obj).message).toContain('User "system:anonymous"');
    }
    const spaced = await raw(`Bearer  ${emu.adminToken}`);
    expect(spaced.status).toBe(403);
    expect(spaced.headers.get('warning')).toBe(
      '299 - "the provided Authorization header contains extra space before the bearer token, and is ignored"',
    );
    expect((await raw(`bearer ${emu.adminToken}`)).status).toBe(200);
  });

  test('a token-file user (userToken) is that user, in system:authenticated, for the API server’s audience only', async () => {
    const token = emu.userToken('alice@example.com', ['team-a-devs']);
    expect(await tokenReview(emu, token)).toEqual({
      authenticated: true,
      user: { username: 'alice@example.com', groups: ['team-a-devs', 'system:authenticated'] },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
    expect(await tokenReview(emu, token, ['crondeck'])).toEqual({ user: {}, error: 'invalid bearer token' });
    const self = await call(emu, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {}, token);
    expect(self.body.status.userInfo).toEqual({
      username: 'alice@example.com',
      groups: ['team-a-devs', 'system:authenticated'],
    });
  });

  test('TokenRequest: lifetimes between ten minutes and 2^32 seconds; tokens bound to objects are not emulated', async () => {
    await emu.serviceAccountToken('team-a', 'runner');
    const request = (spec: Obj) =>
      call(emu, 'POST', '/api/v1/namespaces/team-a/serviceaccounts/runner/token', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec,
      });
    expect((await request({ expirationSeconds: 2 ** 32 })).status).toBe(201);
    expect((await request({ expirationSeconds: 2 ** 32 + 1 })).body.message).toBe(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
    );
    const bound = await request({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } });
    expect(bound.status).toBe(501);
    expect(bound.body.message).toBe('not emulated: TokenRequest boundObjectRef');
  });
});
