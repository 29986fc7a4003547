import { reportTokenFor } from '../../src/domain/reportToken';
import { ClusterRunRecorder } from '../../src/scheduling/clusterRunRecorder';
import { findJob } from '../../src/store/jobs';
import { startTestService, type TestService } from '../support/service';

const SECRET = 'a-report-secret-of-at-least-32-characters';

describe('cluster runs: a pod’s reports and the controller’s own record never both count a run', () => {
  let service: TestService;
  let runs: ClusterRunRecorder;
  let jobId: number;

  const report = (runUid: string, overrides: Record<string, unknown> = {}) => ({
    podUid: `pod-of-${runUid}`,
    runUid,
    attempt: 0,
    final: true,
    status: 'failed',
    exitCode: 1,
    startedAt: '2026-11-23T10:00:00.000Z',
    finishedAt: '2026-11-23T10:00:01.000Z',
    ...overrides,
  });
  const post = (body: unknown) =>
    service.request('POST', `/api/jobs/${jobId}/reports`, body, {
      authorization: `Bearer ${reportTokenFor(SECRET, jobId)}`,
    });
  const unreported = (runUid: string) => ({
    runUid,
    status: 'timeout' as const,
    startedAt: new Date('2026-11-23T10:00:00Z'),
    finishedAt: new Date('2026-11-23T10:05:00Z'),
    attempt: 0,
    reason: { code: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' },
  });
  const executionsOf = async () =>
    (
      await service.db.pool.query('SELECT status, report_key FROM executions WHERE job_id = $1 ORDER BY id', [
        jobId,
      ])
    ).rows;
  const job = async () => (await findJob(service.db.pool, jobId))!;

  beforeAll(async () => {
    service = await startTestService({ env: { SERVICE_REPORT_SECRET: SECRET } });
    runs = new ClusterRunRecorder(service.recorder);
  });
  beforeEach(async () => {
    const created = await service.request('POST', '/api/jobs', {
      name: `job-${Date.now()}-${Math.random()}`.replace('.', ''),
      schedule: '@daily',
      command: 'true',
    });
    jobId = created.body.id;
  });
  afterAll(async () => {
    await service.stop();
  });

  it('refuses a report that arrives after the controller recorded the run as unreported (409)', async () => {
    expect(await runs.recordUnreported(await job(), unreported('run-late'))).toMatchObject({
      status: 'timeout',
    });
    const late = await post(report('run-late'));
    expect(late).toMatchObject({
      status: 409,
      body: { error: 'run run-late was already recorded by the controller: the report came too late' },
    });
    expect(await executionsOf()).toEqual([{ status: 'timeout', report_key: 'run:run-late:unreported' }]);
  });

  it('records nothing for an unreported run whose final report got there first', async () => {
    expect((await post(report('run-reported'))).status).toBe(201);
    expect(await runs.recordUnreported(await job(), unreported('run-reported'))).toBeNull();
    expect(await executionsOf()).toEqual([{ status: 'failed', report_key: 'pod:pod-of-run-reported:0' }]);
  });

  it('still accepts a retried attempt and the final report of an open run', async () => {
    expect((await post(report('run-open', { attempt: 0, final: false }))).status).toBe(201);
    expect(
      (await post(report('run-open', { attempt: 1, final: true, status: 'success', exitCode: 0 }))).status,
    ).toBe(201);
    expect(
      (await post(report('run-open', { attempt: 1, final: true, status: 'success', exitCode: 0 }))).body,
    ).toEqual({ duplicate: true });
    expect(await runs.recordUnreported(await job(), unreported('run-open'))).toBeNull();
    expect((await executionsOf()).map((row) => row.status)).toEqual(['failed', 'success']);
  });

  it('records an unreported run once, however many times the controller sees the Job end', async () => {
    const results = await Promise.all(
      [1, 2, 3].map(async () => runs.recordUnreported(await job(), unreported('run-x'))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await executionsOf()).toHaveLength(1);
  });

  it('records a skipped fire time once per CronJob and time', async () => {
    const fire = new Date('2026-11-23T11:00:00Z');
    const now = new Date('2026-11-23T11:00:05Z');
    expect(await runs.recordSkipped(await job(), 'cj-uid', fire, now)).toMatchObject({
      status: 'skipped',
      attempt: 0,
    });
    expect(await runs.recordSkipped(await job(), 'cj-uid', fire, now)).toBeNull();
    expect(await executionsOf()).toEqual([
      { status: 'skipped', report_key: 'skip:cj-uid:2026-11-23T11:00:00.000Z' },
    ]);
  });
});
