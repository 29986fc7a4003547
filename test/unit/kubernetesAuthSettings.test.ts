import { readEnvironment } from '../../src/config/environment';
import { startService } from '../../src/service';
import type { Database } from '../../src/store/database';
import { createMemoryLogger } from '../support/memoryLogger';

/** SERVICE_AUTH and its settings (docs/configuration.md), and what cannot work, refused at start. */
describe('SERVICE_AUTH', () => {
  const onCluster = { SERVICE_RUNTIME: 'kubernetes', SERVICE_AUTH: 'kubernetes' };

  it('is token by default, as before, with the review settings at their defaults', () => {
    expect(readEnvironment({})).toMatchObject({
      auth: 'token',
      authCacheSeconds: 10,
      authReviewTimeoutMs: 3000,
    });
    expect(
      readEnvironment({
        ...onCluster,
        SERVICE_AUTH_CACHE_SECONDS: '0',
        SERVICE_AUTH_REVIEW_TIMEOUT_MS: '250',
      }),
    ).toMatchObject({ auth: 'kubernetes', authCacheSeconds: 0, authReviewTimeoutMs: 250 });
  });

  it('refuses values it cannot take, naming the variable', () => {
    expect(() => readEnvironment({ SERVICE_AUTH: 'oidc' })).toThrow(
      'SERVICE_AUTH: must be token or kubernetes',
    );
    expect(() => readEnvironment({ ...onCluster, SERVICE_AUTH_CACHE_SECONDS: '61' })).toThrow(
      'SERVICE_AUTH_CACHE_SECONDS: must be at most 60 seconds',
    );
    expect(() => readEnvironment({ ...onCluster, SERVICE_AUTH_REVIEW_TIMEOUT_MS: '50' })).toThrow(
      'SERVICE_AUTH_REVIEW_TIMEOUT_MS: must be at least 100 milliseconds',
    );
  });

  it('refuses kubernetes auth without the Kubernetes runtime', () => {
    expect(() => readEnvironment({ SERVICE_AUTH: 'kubernetes' })).toThrow(
      'invalid environment: SERVICE_AUTH: kubernetes needs SERVICE_RUNTIME=kubernetes',
    );
  });

  it('refuses to start with kubernetes auth and no cluster to review tokens, before opening anything', async () => {
    const db = {} as Database; // never touched: the refusal comes first
    await expect(
      startService({ env: readEnvironment({ ...onCluster, PORT: '0' }), db, logger: createMemoryLogger() }),
    ).rejects.toThrow('SERVICE_AUTH=kubernetes needs a cluster to review the tokens of callers');
  });
});
