import { startTestService, type TestService } from '../support/service';

describe('scheduler API, health and cron describe', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.stop();
  });

  it('pauses and resumes', async () => {
    expect((await service.request('GET', '/api/scheduler/status')).body).toEqual({
      paused: false,
      until: null,
    });
    expect((await service.request('POST', '/api/scheduler/pause')).body).toEqual({
      paused: true,
      until: null,
    });
    expect((await service.request('GET', '/health')).body).toMatchObject({ paused: true, pausedUntil: null });
    expect((await service.request('POST', '/api/scheduler/resume')).body).toEqual({ paused: false });
    const until = new Date(Date.now() + 3_600_000).toISOString();
    expect((await service.request('POST', '/api/scheduler/pause', { until })).body).toEqual({
      paused: true,
      until,
    });
    expect((await service.request('GET', '/api/scheduler/status')).body).toEqual({ paused: true, until });
    await service.request('POST', '/api/scheduler/resume');
  });

  it.each([
    [{ until: 'tomorrow' }, 'until: must be an ISO 8601 timestamp'],
    [{ until: 12 }, 'until: must be an ISO 8601 timestamp'],
    [{ until: '2020-01-01T00:00:00Z' }, 'until: must be in the future'],
    [{ untl: '2030-01-01T00:00:00Z' }, 'untl'],
    [[1], 'request body must be a JSON object'],
  ])('rejects pause with %j', async (body, message) => {
    const response = await service.request('POST', '/api/scheduler/pause', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toContain(message);
    expect((await service.request('GET', '/api/scheduler/status')).body.paused).toBe(false);
  });

  it('reports health', async () => {
    const { status, body } = await service.request('GET', '/health');
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 'ok',
      totalJobs: 0,
      enabledJobs: 0,
      dbSizeBytes: expect.any(Number),
      paused: false,
      pausedUntil: null,
    });
    expect(body.dbSizeBytes).toBeGreaterThan(0);
  });

  it('describes valid and invalid cron expressions', async () => {
    const valid = await service.request(
      'GET',
      `/api/cron/describe?expr=${encodeURIComponent('*/15 * * * *')}`,
    );
    expect(valid.body).toEqual({
      valid: true,
      description: 'Every 15 minutes',
      nextRun: expect.stringMatching(/:(00|15|30|45):00\.000Z$/),
    });
    const invalid = await service.request(
      'GET',
      `/api/cron/describe?expr=${encodeURIComponent('60 * * * *')}`,
    );
    expect([invalid.status, invalid.body]).toEqual([
      200,
      { valid: false, error: 'minute value 60 is out of range 0-59' },
    ]);
    const zoned = await service.request(
      'GET',
      `/api/cron/describe?expr=${encodeURIComponent('0 9 * * *')}&timezone=Asia/Kolkata`,
    );
    expect(zoned.body.nextRun).toMatch(/T03:30:00\.000Z$/);
    const missing = await service.request('GET', '/api/cron/describe');
    expect([missing.status, missing.body]).toEqual([400, { error: 'expr: query parameter is required' }]);
    const badZone = await service.request('GET', '/api/cron/describe?expr=*+*+*+*+*&timezone=Nope/Nope');
    expect(badZone.status).toBe(400);
  });
});
