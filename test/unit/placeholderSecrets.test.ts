/**
 * deploy/base/secret.yaml ships placeholders that say CHANGE-ME: a service started with one would
 * run on a publicly known secret, so one that still holds it refuses to start, saying which.
 */
import { readEnvironment } from '../../src/config/environment';

const OWN_SECRET =
  'still holds a placeholder (it contains CHANGE-ME, as deploy/base/secret.yaml ships it): ' +
  'set a secret of your own, e.g. the output of `openssl rand -hex 32`';

describe('placeholder secrets', () => {
  it('refuses an API token that contains CHANGE-ME, long enough as it is', () => {
    expect(() => readEnvironment({ SERVICE_API_TOKEN: 'CHANGE-ME-api-token-at-least-16-chars' })).toThrow(
      `invalid environment: SERVICE_API_TOKEN: ${OWN_SECRET}`,
    );
    expect(() => readEnvironment({ SERVICE_API_TOKEN: 'please-change-me-before-use' })).toThrow(
      /SERVICE_API_TOKEN: still holds a placeholder/,
    );
  });

  it('refuses a report secret that contains CHANGE-ME, whatever its length, with that message alone', () => {
    for (const secret of ['CHANGE-ME-report-secret', `CHANGE-ME-${'x'.repeat(40)}`]) {
      expect(() => readEnvironment({ SERVICE_REPORT_SECRET: secret })).toThrow(
        `invalid environment: SERVICE_REPORT_SECRET: ${OWN_SECRET}`,
      );
    }
  });

  it('refuses the placeholder database URL without repeating it', () => {
    const url = 'postgres://crondeck:CHANGE-ME@postgres.example.internal:5432/crondeck';
    let message = '';
    try {
      readEnvironment({ DATABASE_URL: url });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'invalid environment: DATABASE_URL: still holds a placeholder (it contains CHANGE-ME, as ' +
        'deploy/base/secret.yaml ships it): put the URL of your PostgreSQL server here',
    );
  });

  it('names every placeholder at once, and takes real values', () => {
    expect(() =>
      readEnvironment({
        DATABASE_URL: 'postgres://crondeck:CHANGE-ME@db/crondeck',
        SERVICE_API_TOKEN: 'CHANGE-ME-api-token-at-least-16-chars',
        SERVICE_REPORT_SECRET: 'CHANGE-ME-report-secret',
      }),
    ).toThrow(
      /DATABASE_URL: still holds .*; SERVICE_API_TOKEN: still holds .*; SERVICE_REPORT_SECRET: still holds/,
    );
    expect(
      readEnvironment({
        DATABASE_URL: 'postgres://crondeck:s3cret@db/crondeck',
        SERVICE_API_TOKEN: 'a1b2c3d4e5f6a7b8c9d0',
        SERVICE_REPORT_SECRET: 'f'.repeat(64),
      }),
    ).toMatchObject({ apiToken: 'a1b2c3d4e5f6a7b8c9d0', reportSecret: 'f'.repeat(64) });
  });
});
