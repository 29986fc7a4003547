import { ControlledAttempts, startOfRunningAttempt } from '../support/attempts';
import { startTestService } from '../support/service';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A job without a timeout may run for weeks: its duration is recorded whole, never overflowing. */
describe('runs longer than 24.8 days (2^31 ms)', () => {
  it('records a local attempt of 25 days with its full duration', async () => {
    const attempts = new ControlledAttempts();
    const service = await startTestService({ local: { execute: attempts.run } });
    try {
      const job = (
        await service.request('POST', '/api/jobs', { name: 'weeks', schedule: '@yearly', command: 'true' })
      ).body;
      await service.request('POST', `/api/jobs/${job.id}/run`);
      await attempts.waitForStarted(1);
      const startedAt = await startOfRunningAttempt(service.db.pool, job.id);
      attempts.finishNext({ startedAt, finishedAt: new Date(startedAt.getTime() + 25 * DAY_MS + 1) });
      await service.local.idle();
      const [execution] = (await service.request('GET', `/api/executions?jobId=${job.id}`)).body;
      expect(execution).toMatchObject({ status: 'success', durationMs: 25 * DAY_MS + 1 });
      const metrics = (await service.request('GET', '/metrics')).text;
      expect(metrics).toContain(`service_execution_duration_seconds_sum ${(25 * DAY_MS + 1) / 1000}`);
    } finally {
      await service.stop();
    }
  });

  it('closes an attempt a crash left running for 30 days with its whole duration', async () => {
    const first = await startTestService();
    const job = (
      await first.request('POST', '/api/jobs', { name: 'abandoned', schedule: '@yearly', command: 'true' })
    ).body;
    const startedAt = new Date(Date.now() - 30 * DAY_MS);
    await first.db.pool.query(
      `INSERT INTO executions (job_id, job_name, status, started_at, attempt) VALUES ($1, 'abandoned', 'running', $2, 0)`,
      [job.id, startedAt],
    );
    await first.runtime.stop();
    const second = await startTestService({ db: first.db });
    try {
      const [execution] = (await second.request('GET', `/api/executions?jobId=${job.id}`)).body;
      expect(execution).toMatchObject({ status: 'failed', exitCode: -1 });
      expect(execution.durationMs).toBeGreaterThanOrEqual(30 * DAY_MS);
      expect(execution.durationMs).toBe(Date.parse(execution.finishedAt) - startedAt.getTime());
    } finally {
      await second.stop();
      await first.stop();
    }
  });
});
