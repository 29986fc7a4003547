import { ControlledAttempts } from '../support/attempts';
import { eventually, startTestService, type TestService } from '../support/service';

const SPEC_STATUSES = ['success', 'failed', 'timeout', 'skipped'];

interface ListedExecution {
  id: number;
  status: string;
  finishedAt: unknown;
  durationMs: unknown;
  exitCode: unknown;
}

/** Spec §2 Execution, as the list must show every item. */
function expectSpecExecution(execution: ListedExecution): void {
  expect(SPEC_STATUSES).toContain(execution.status);
  expect(execution.finishedAt).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/));
  expect(Number.isInteger(execution.durationMs)).toBe(true);
  expect(Number.isInteger(execution.exitCode)).toBe(true);
}

function sample(metrics: string, line: string): number {
  const match = metrics.split('\n').find((l) => l.startsWith(line + ' '));
  if (match === undefined) throw new Error(`no sample ${line}`);
  return Number(match.slice(line.length + 1));
}

/**
 * The executions list speaks the spec's four statuses only: an attempt in progress is not an
 * execution yet. It stays visible where a client asks for it: `job.running`, `?status=running`,
 * and the single read of an id obtained there.
 */
describe('attempts in progress and the executions list', () => {
  let service: TestService;
  const attempts = new ControlledAttempts();
  let jobId: number;

  beforeAll(async () => {
    service = await startTestService({ local: { execute: attempts.run } });
    jobId = (
      await service.request('POST', '/api/jobs', { name: 'long-one', schedule: '@daily', command: 'true' })
    ).body.id;
  });
  afterAll(async () => {
    await service.stop();
  });

  const list = async (query = '') => {
    const response = await service.request('GET', `/api/executions${query}`);
    expect(response.status).toBe(200);
    return response.body as ListedExecution[];
  };

  it('lists finished executions only, each in the spec’s shape, while an attempt runs', async () => {
    // One finished run first, and every list read once, so that cached pages exist.
    await service.request('POST', `/api/jobs/${jobId}/run`);
    await attempts.waitForStarted(1);
    attempts.finishNext({ exitCode: 0 });
    await service.local.idle();
    const finished = await list();
    expect(finished).toHaveLength(1);
    expect(await list(`?jobId=${jobId}`)).toEqual(finished);
    expect(await list('?status=running')).toEqual([]);

    await service.request('POST', `/api/jobs/${jobId}/run`);
    await attempts.waitForStarted(2);
    const running = (await service.request('GET', `/api/jobs/${jobId}`)).body.running;
    expect(running).toMatchObject({ executionId: expect.any(Number), attempt: 0 });

    for (const query of ['', `?jobId=${jobId}`, '?limit=1000', `?jobId=${jobId}&limit=1`]) {
      const items = await list(query);
      expect(items.map((e) => e.id)).toEqual([finished[0]!.id]);
      items.forEach(expectSpecExecution);
    }

    // The opt-in shows it, and its id reads as what it is.
    const inProgress = await list('?status=running');
    expect(inProgress).toMatchObject([{ id: running.executionId, status: 'running', finishedAt: null }]);
    expect(await list(`?status=running&jobId=${jobId}`)).toEqual(inProgress);
    const single = await service.request('GET', `/api/executions/${running.executionId}`);
    expect(single).toMatchObject({ status: 200, body: { id: running.executionId, status: 'running' } });

    // The metrics summary, the counters, the stats and the list count the same executions.
    const metrics = (await service.request('GET', '/metrics')).text;
    const counted = SPEC_STATUSES.reduce(
      (sum, status) => sum + sample(metrics, `service_executions_total{status="${status}"}`),
      0,
    );
    expect(sample(metrics, 'service_execution_duration_seconds_count')).toBe(finished.length);
    expect(counted).toBe(finished.length);
    const stats = (await service.request('GET', '/api/stats')).body;
    expect(stats.recentSuccesses + stats.recentFailures).toBe(finished.length);

    // Once it ends it is an execution like any other, in every list that shows it.
    attempts.finishNext({ status: 'failed', exitCode: 4 });
    await service.local.idle();
    const after = await list();
    expect(after.map((e) => [e.id, e.status])).toEqual([
      [running.executionId, 'failed'],
      [finished[0]!.id, 'success'],
    ]);
    after.forEach(expectSpecExecution);
    expect(await list('?status=running')).toEqual([]);
    expect((await list('?status=failed')).map((e) => e.id)).toEqual([running.executionId]);
    await eventually(async () => (await service.request('GET', `/api/jobs/${jobId}`)).body.running === null);
  });
});
