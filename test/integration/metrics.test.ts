import { createLogger } from '../../src/logging/logger';
import { ExecutionRecorder } from '../../src/scheduling/executionRecorder';
import { readExecutionCounters } from '../../src/store/executions';
import { findJob } from '../../src/store/jobs';
import { createTestDatabase, onPostgresServer } from '../support/database';
import { chartMetricNames, missingFromScrape } from '../support/chartMetrics';
import { startTestService } from '../support/service';
import { pruneHistory } from '../../src/scheduling/retention';
import { systemClock } from '../../src/domain/clock';

function sample(metrics: string, line: string): number {
  const match = metrics.split('\n').find((l) => l.startsWith(line + ' '));
  if (!match) throw new Error(`no sample ${line} in\n${metrics}`);
  return Number(match.slice(line.length + 1));
}

describe('GET /metrics', () => {
  it('exposes the six metrics with their names, types and labels, unauthenticated', async () => {
    const service = await startTestService({ env: { SERVICE_API_TOKEN: 'a-token-of-enough-length' } });
    try {
      const response = await fetch(`${service.url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4');
      const text = await response.text();
      expect(text).toContain('# TYPE service_info gauge');
      expect(text).toMatch(/^service_info\{version="\d+\.\d+\.\d+"\} 1$/m);
      expect(text).toContain('# TYPE service_jobs_total gauge');
      expect(text).toContain('# TYPE service_executions_total counter');
      expect(text).toContain('# TYPE service_execution_duration_seconds summary');
      expect(text).toContain('# TYPE service_scheduler_paused gauge');
      expect(text).toContain('# TYPE service_db_size_bytes gauge');
      for (const status of ['enabled', 'disabled'])
        expect(sample(text, `service_jobs_total{status="${status}"}`)).toBe(0);
      for (const status of ['success', 'failed', 'timeout', 'skipped']) {
        expect(sample(text, `service_executions_total{status="${status}"}`)).toBe(0);
      }
      expect(sample(text, 'service_scheduler_paused')).toBe(0);
      expect(sample(text, 'service_db_size_bytes')).toBeGreaterThan(0);
      // The chart's alerts and dashboard query only what is exposed.
      const queried = chartMetricNames('service_');
      expect(queried.length).toBeGreaterThan(3);
      expect(missingFromScrape(queried, text)).toEqual([]);
    } finally {
      await service.stop();
    }
  });

  it('counts executions across restarts and never lowers the counter when history is pruned', async () => {
    const db = await createTestDatabase();
    try {
      const first = await startTestService({ db });
      const job = (
        await first.request('POST', '/api/jobs', {
          name: 'j',
          schedule: '@daily',
          command: 'exit 2',
          timeout: 5,
        })
      ).body;
      await first.request('POST', `/api/jobs/${job.id}/run`);
      await first.request('PATCH', `/api/jobs/${job.id}/toggle`, { enabled: false });
      await first.local.idle();
      await first.request('POST', '/api/scheduler/pause');
      const before = (await first.request('GET', '/metrics')).text;
      expect(sample(before, 'service_executions_total{status="failed"}')).toBe(1);
      expect(sample(before, 'service_jobs_total{status="disabled"}')).toBe(1);
      expect(sample(before, 'service_scheduler_paused')).toBe(1);
      expect(sample(before, 'service_execution_duration_seconds_count')).toBe(1);
      await first.stop();

      const second = await startTestService({ db });
      await second.request('POST', `/api/jobs/${job.id}/run`);
      await second.local.idle();
      expect(
        sample((await second.request('GET', '/metrics')).text, 'service_executions_total{status="failed"}'),
      ).toBe(2);
      // Prune everything: the history goes, the counter stays.
      const removed = await pruneHistory(db.pool, { now: () => new Date(Date.now() + 365 * 86_400_000) }, 90);
      expect(removed).toBe(2);
      const after = (await second.request('GET', '/metrics')).text;
      expect(sample(after, 'service_executions_total{status="failed"}')).toBe(2);
      expect(sample(after, 'service_execution_duration_seconds_count')).toBe(0);
      expect((await second.request('GET', '/api/executions')).body).toEqual([]);
      await second.stop();
      expect(await pruneHistory(db.pool, systemClock, 90)).toBe(0);
    } finally {
      await db.close();
    }
  });
});

describe('the execution counters under concurrent recording', () => {
  it('count every execution recorded at once from several connections exactly once', async () => {
    const db = await createTestDatabase();
    const service = await startTestService({ db });
    try {
      const created = await service.request('POST', '/api/jobs', {
        name: 'many',
        schedule: '@daily',
        command: 'true',
      });
      const job = (await findJob(db.pool, created.body.id))!;
      // Several recorders, as several replicas are: each records its batches one at a time, so
      // concurrent transactions come from different recorders.
      const recorders = Array.from(
        { length: 4 },
        () => new ExecutionRecorder(db.pool, createLogger({ level: 'error' })),
      );
      const now = new Date();
      const result = {
        status: 'success' as const,
        exitCode: 0,
        stdout: '',
        stderr: '',
        startedAt: now,
        finishedAt: now,
      };
      const recorded = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          recorders[i % 4]!.recordFinished(
            job,
            { ...result, attempt: 0, reportKey: `many-${i % 150}` },
            true,
          ),
        ),
      );
      // 50 of the 200 repeat a key: stored and counted once.
      expect(recorded.filter(Boolean)).toHaveLength(150);
      expect((await readExecutionCounters(db.pool)).success).toBe(150);
      expect(
        sample((await service.request('GET', '/metrics')).text, 'service_executions_total{status="success"}'),
      ).toBe(150);
      if (onPostgresServer) {
        // The connections bumped slots of their own (migration 009), not one row.
        const { rows } = await db.pool.query(
          "SELECT count(*)::int AS slots FROM execution_counters WHERE status = 'success' AND total > 0",
        );
        expect(rows[0].slots).toBeGreaterThan(1);
      }
    } finally {
      await service.stop();
      await db.close();
    }
  });
});
