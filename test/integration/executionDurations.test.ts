import { ControlledAttempts, startOfRunningAttempt } from '../support/attempts';
import { startTestService, type TestService } from '../support/service';

/**
 * An execution's startedAt is when its attempt was recorded, just before its command was spawned
 * (so that a crash leaves a trace); its durationMs is the command's own time, from its spawn to its
 * exit, which the runner measures (docs/api.md). The two differ by the moment the spawn takes.
 */
describe('execution durations', () => {
  const attempts = new ControlledAttempts();
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ local: { execute: attempts.run } });
  });
  afterAll(async () => {
    await service.stop();
  });

  it("are the command's own time, its startedAt the attempt's record", async () => {
    const job = (
      await service.request('POST', '/api/jobs', { name: 'late-spawn', schedule: '@yearly', command: 'true' })
    ).body;
    await service.request('POST', `/api/jobs/${job.id}/run`);
    await attempts.waitForStarted(1);
    const startedAt = await startOfRunningAttempt(service.db.pool, job.id);
    // The command's clock started 400 ms after the attempt's row, and it ended 1 s after the row.
    attempts.finishNext({
      startedAt: new Date(startedAt.getTime() + 400),
      finishedAt: new Date(startedAt.getTime() + 1000),
    });
    await service.local.idle();
    const [listed] = (await service.request('GET', `/api/executions?jobId=${job.id}`)).body;
    const execution = (await service.request('GET', `/api/executions/${listed.id}`)).body;
    expect(execution).toMatchObject({
      startedAt: startedAt.toISOString(),
      finishedAt: new Date(startedAt.getTime() + 1000).toISOString(),
      durationMs: 600,
    });
    expect((await service.request('GET', '/metrics')).text).toContain(
      'service_execution_duration_seconds_sum 0.6\n',
    );
  });
});
