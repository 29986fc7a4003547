import { startTestService, type TestService } from '../support/service';

describe('jobs API', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.stop();
  });

  it('creates, reads, lists and runs a job', async () => {
    const created = await service.request('POST', '/api/jobs', {
      name: 'hello',
      schedule: '*/5 * * * *',
      command: 'echo hi',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'hello', enabled: true, timeout: 0, tags: [] });
    const read = await service.request('GET', `/api/jobs/${created.body.id}`);
    expect(read.body).toEqual(created.body);
  });
});
