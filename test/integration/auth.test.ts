import { startTestService, type TestService } from '../support/service';

describe('API token', () => {
  const token = 'correct-horse-battery-staple';
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { SERVICE_API_TOKEN: token } });
  });
  afterAll(async () => {
    await service.stop();
  });

  it('guards /api/* and leaves /health and /metrics open', async () => {
    const missing = await service.request('GET', '/api/jobs');
    expect([missing.status, missing.body.error]).toEqual([
      401,
      'missing API token: send Authorization: Bearer <token>',
    ]);
    const wrong = await service.request('GET', '/api/jobs', undefined, { Authorization: 'Bearer nope' });
    expect([wrong.status, wrong.body]).toEqual([401, { error: 'invalid API token' }]);
    const right = await service.request('GET', '/api/jobs', undefined, { Authorization: `Bearer ${token}` });
    expect([right.status, right.body]).toEqual([200, []]);
    expect((await service.request('GET', '/health')).status).toBe(200);
    expect((await service.request('GET', '/metrics')).status).toBe(200);
  });

  it('checks the token before reading the body', async () => {
    const response = await service.request('POST', '/api/jobs', {
      name: 'x',
      schedule: '@daily',
      command: 'true',
    });
    expect(response.status).toBe(401);
    expect(
      (await service.request('GET', '/api/jobs', undefined, { Authorization: `Bearer ${token}` })).body,
    ).toEqual([]);
  });
});
