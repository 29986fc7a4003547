import { ApiServerUnavailableError } from '../../src/auth/apiServerUnavailable';
import { type ReviewApi, Reviewer } from '../../src/auth/reviewer';
import type { AccessAttributes } from '../../src/kube/accessReviews';
import { createMemoryLogger } from '../support/memoryLogger';

/** The reviews of SERVICE_AUTH=kubernetes, over a stand-in of the API server's two endpoints. */
describe('Reviewer', () => {
  const list: AccessAttributes = {
    kind: 'resource',
    verb: 'list',
    group: 'crondeck.dev',
    resource: 'scheduledjobs',
    namespace: 'a',
  };
  const viewer = { username: 'viewer', uid: 'u-1', groups: ['system:authenticated'], extra: {} };

  function standIn(overrides: Partial<ReviewApi> = {}) {
    const asked = { tokens: 0, access: [] as string[][] };
    const api: ReviewApi = {
      reviewToken: async (token) => {
        asked.tokens += 1;
        return token === 'good'
          ? { authenticated: true, user: viewer }
          : { authenticated: false, error: 'invalid bearer token' };
      },
      reviewAccess: async (user) => {
        asked.access.push(user.groups);
        return { allowed: user.groups.includes('readers'), reason: null };
      },
      ...overrides,
    };
    return { api, asked };
  }
  const reviewer = (api: ReviewApi, timeoutMs = 1000) =>
    new Reviewer({ api, logger: createMemoryLogger(), cacheTtlMs: 10_000, timeoutMs });

  it('authenticates by TokenReview, and keeps who a token is and who it is not', async () => {
    const { api, asked } = standIn();
    const reviews = reviewer(api);
    expect(await reviews.authenticate('good')).toEqual({ ...viewer, token: 'good' });
    expect(await reviews.authenticate('good')).toEqual({ ...viewer, token: 'good' });
    expect(await reviews.authenticate('bad')).toEqual({
      refusal:
        "the cluster's API server did not accept the bearer token (invalid bearer token): send a current ServiceAccount token or OIDC ID token of this cluster",
    });
    await reviews.authenticate('bad');
    expect(asked.tokens).toBe(2);
  });

  it('keeps decisions by user, groups and question: other groups are another review', async () => {
    const { api, asked } = standIn();
    const reviews = reviewer(api);
    const caller = { ...viewer, token: 'good' };
    expect(await reviews.allowed(caller, list)).toBe(false);
    expect(await reviews.allowed(caller, list)).toBe(false);
    expect(await reviews.allowed({ ...caller, groups: ['readers'] }, list)).toBe(true);
    expect(await reviews.allowed({ ...caller, groups: ['readers'] }, { ...list, namespace: 'b' })).toBe(true);
    expect(asked.access).toHaveLength(3);
  });

  it('gives up on a review after the timeout: the API server is unavailable, and nothing is kept', async () => {
    let answer = false;
    const { api } = standIn({
      reviewAccess: (_user, _attributes, signal) =>
        answer
          ? Promise.resolve({ allowed: true, reason: null })
          : new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    });
    const reviews = reviewer(api, 50);
    const caller = { ...viewer, token: 'good' };
    const refused = reviews.allowed(caller, list);
    await expect(refused).rejects.toBeInstanceOf(ApiServerUnavailableError);
    await expect(refused).rejects.toThrow(
      "the cluster's API server could not review the request (SubjectAccessReview: no answer within 50 ms); try again shortly",
    );
    answer = true;
    expect(await reviews.allowed(caller, list)).toBe(true);
  });

  it('takes an error answer of the API server for its being unavailable, never for a yes', async () => {
    const { api } = standIn({
      reviewToken: () => Promise.reject(Object.assign(new Error('HTTP 500'), { code: 500 })),
    });
    await expect(reviewer(api).authenticate('good')).rejects.toThrow('(TokenReview: it answered 500)');
  });
});
