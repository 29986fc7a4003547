import type { AttemptResult, Execution } from '../../src/domain/execution';
import type { Job } from '../../src/domain/job';
import { ClusterRunRecorder } from '../../src/scheduling/clusterRunRecorder';
import { ReportIngest, reportClaim } from '../../src/scheduling/reportIngest';
import { findJob } from '../../src/store/jobs';
import { startTestService, type TestService } from '../support/service';

/**
 * Executions that finish while a recording transaction is under way are recorded together in the
 * next one (group commit). Each test first records one execution of `job` alone, then submits the
 * rest in the same tick: they wait for the first and go together into one transaction, where each
 * must come out exactly as if it had been recorded alone.
 */
describe('recording executions together', () => {
  let service: TestService;
  let reports: ReportIngest;
  let job: Job;
  let otherJob: Job;
  let counter = 0;

  const result = (overrides: Partial<AttemptResult> = {}): AttemptResult => ({
    status: 'success',
    exitCode: 0,
    stdout: 'out\n',
    stderr: '',
    startedAt: new Date('2026-11-23T10:00:00Z'),
    finishedAt: new Date('2026-11-23T10:00:01Z'),
    ...overrides,
  });
  const report = (of: Job, overrides: Partial<AttemptResult> & { reportKey?: string } = {}) =>
    service.recorder.recordFinished(of, { ...result(overrides), attempt: 0, ...overrides }, true);
  const counted = async () =>
    Number(
      (await service.db.pool.query<{ n: string }>('SELECT sum(total)::text AS n FROM execution_counters'))
        .rows[0]!.n,
    );
  const rowsOf = async (of: Job) =>
    (
      await service.db.pool.query<{ status: string; report_key: string | null }>(
        'SELECT status, report_key FROM executions WHERE job_id = $1 ORDER BY id',
        [of.id],
      )
    ).rows;
  /**
   * Counts the recording transactions while `work` runs: each takes a connection of the pool, as
   * each lone statement does (`pool.query` takes one too: those are not transactions). And the
   * statements run alone, by name.
   */
  const transactionsDuring = async <T>(
    work: () => Promise<T>,
  ): Promise<{ value: T; transactions: number; loneStatements: string[] }> => {
    const connect = jest.spyOn(service.db.pool, 'connect');
    const query = jest.spyOn(service.db.pool, 'query');
    try {
      const value = await work();
      return {
        value,
        transactions: connect.mock.calls.length - query.mock.calls.length,
        loneStatements: query.mock.calls.map(([statement]) =>
          typeof statement === 'string' ? statement : String((statement as { name?: string }).name),
        ),
      };
    } finally {
      connect.mockRestore();
      query.mockRestore();
    }
  };
  const createJob = async () => {
    const created = await service.request('POST', '/api/jobs', {
      name: `batch-${++counter}`,
      schedule: '@daily',
      command: 'true',
    });
    return (await findJob(service.db.pool, created.body.id))!;
  };

  beforeAll(async () => {
    service = await startTestService();
    reports = new ReportIngest(service.recorder);
  });
  beforeEach(async () => {
    job = await createJob();
    otherJob = await createJob();
  });
  afterAll(async () => {
    await service.stop();
  });

  it('records what finishes during a recording in one transaction, each counted once', async () => {
    const before = await counted();
    const { value: recorded, transactions } = await transactionsDuring(() => {
      const first = report(job, { reportKey: `${job.id}-first` });
      const rest = Array.from({ length: 20 }, (_, i) =>
        report(i % 2 ? job : otherJob, {
          reportKey: `${job.id}-${i}`,
          startedAt: new Date(Date.UTC(2026, 10, 23, 11, i)),
          status: i === 18 ? 'failed' : 'success',
        }),
      );
      return Promise.all([first, ...rest]);
    });
    // The first alone, then the rest together.
    expect(transactions).toBe(2);
    expect(recorded.every((execution) => execution !== null)).toBe(true);
    expect(new Set(recorded.map((execution) => execution!.id)).size).toBe(21);
    expect(await counted()).toBe(before + 21);
    expect((await rowsOf(job)).length + (await rowsOf(otherJob)).length).toBe(21);
    // Each job's last run is its latest execution of the batch.
    expect(await findJob(service.db.pool, job.id)).toMatchObject({
      lastRun: new Date(Date.UTC(2026, 10, 23, 11, 19)),
      lastStatus: 'success',
    });
    expect(await findJob(service.db.pool, otherJob.id)).toMatchObject({
      lastRun: new Date(Date.UTC(2026, 10, 23, 11, 18)),
      lastStatus: 'failed',
    });
  });

  it('answers each execution of the batch with its own row', async () => {
    const first = report(job, { reportKey: `${job.id}-a` });
    const second = report(otherJob, { reportKey: `${job.id}-b`, status: 'failed', exitCode: 3, stdout: 'b' });
    const third = report(job, { reportKey: `${job.id}-c`, status: 'timeout', exitCode: 143, stdout: 'c' });
    const [a, b, c] = (await Promise.all([first, second, third])) as Execution[];
    expect(a).toMatchObject({ jobId: job.id, status: 'success', stdout: 'out\n' });
    expect(b).toMatchObject({
      jobId: otherJob.id,
      jobName: otherJob.name,
      status: 'failed',
      exitCode: 3,
      stdout: 'b',
    });
    expect(c).toMatchObject({ jobId: job.id, status: 'timeout', exitCode: 143, stdout: 'c' });
  });

  it('stores and counts a report that arrives twice in one batch once', async () => {
    const before = await counted();
    const first = report(job, { reportKey: `${job.id}-lone` });
    const twice = [
      report(job, { reportKey: `${job.id}-twice` }),
      report(job, { reportKey: `${job.id}-twice` }),
    ];
    await first;
    const [one, two] = await Promise.all(twice);
    expect(one).not.toBeNull();
    expect(two).toBeNull();
    expect(await counted()).toBe(before + 2);
    expect(await rowsOf(job)).toHaveLength(2);
  });

  it('records the outcome of an attempt given twice in one batch once, the first', async () => {
    const before = await counted();
    const executionId = await service.recorder.start(job, 0, new Date('2026-11-23T10:00:00Z'));
    const first = report(job);
    const finishes = [
      service.recorder.finish(job, executionId, result({ stdout: 'first' }), true),
      service.recorder.finish(job, executionId, result({ stdout: 'second', status: 'failed' }), true),
    ];
    await first;
    const [one, two] = await Promise.all(finishes);
    expect(one).toMatchObject({ id: executionId, stdout: 'first', status: 'success' });
    expect(two).toBeNull();
    expect(await counted()).toBe(before + 2);
  });

  it('opens the rows of attempts that start together, failing alone one whose job is gone', async () => {
    const gone = await createJob();
    await service.db.pool.query('DELETE FROM jobs WHERE id = $1', [gone.id]);
    const first = service.recorder.start(job, 0, new Date());
    const together = [
      service.recorder.start(otherJob, 0, new Date()),
      service.recorder.start(gone, 0, new Date()),
      service.recorder.start(job, 1, new Date()),
    ];
    await first;
    const [other, refused, retry] = await Promise.allSettled(together);
    expect(other).toMatchObject({ status: 'fulfilled', value: expect.any(Number) });
    expect(refused).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ code: '23503' }) });
    expect(retry).toMatchObject({ status: 'fulfilled', value: expect.any(Number) });
    const running = await service.db.pool.query<{ job_id: number; attempt: number }>(
      "SELECT job_id, attempt FROM executions WHERE status = 'running' AND job_id = ANY ($1::int[]) ORDER BY id",
      [[job.id, otherJob.id]],
    );
    expect(running.rows).toEqual([
      { job_id: job.id, attempt: 0 },
      { job_id: otherJob.id, attempt: 0 },
      { job_id: job.id, attempt: 1 },
    ]);
  });

  it('reads the jobs of a batch’s reports together, refusing a report of a job that does not exist', async () => {
    const first = report(job);
    const missing = service.recorder.recordReport(
      999_999,
      { ...result(), attempt: 0, reportKey: `${job.id}-missing` },
      true,
    );
    const known = service.recorder.recordReport(
      job.id,
      { ...result(), attempt: 0, reportKey: `${job.id}-known` },
      true,
    );
    await first;
    await expect(missing).rejects.toThrow('job 999999 not found');
    await expect(known).resolves.toMatchObject({ jobId: job.id, jobName: job.name });
  });

  it('fails a refused recording alone: the others of its batch are recorded', async () => {
    const runs = new ClusterRunRecorder(service.recorder);
    await runs.recordUnreported(job, {
      runUid: `late-${job.id}`,
      status: 'timeout',
      startedAt: new Date('2026-11-23T09:00:00Z'),
      finishedAt: new Date('2026-11-23T09:05:00Z'),
      attempt: 0,
      reason: { code: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' },
    });
    const before = await counted();
    const first = report(job);
    const podLate = podReport(`late-${job.id}`, 'pod-late');
    const late = service.recorder.recordFinished(
      job,
      { ...podLate, reportKey: 'pod:pod-late:0' },
      true,
      reportClaim(job.id, podLate.runUid, true),
    );
    const others = [
      report(job, { reportKey: `${job.id}-ok-1` }),
      report(job, { reportKey: `${job.id}-ok-2` }),
    ];
    await first;
    await expect(late).rejects.toThrow('came too late');
    expect(await Promise.all(others)).toEqual([
      expect.objectContaining({ jobId: job.id }),
      expect.anything(),
    ]);
    expect(await counted()).toBe(before + 3);
  });

  it('settles claims on one run in the order they came, within one batch', async () => {
    const runs = new ClusterRunRecorder(service.recorder);
    const unreported = (runUid: string) => ({
      runUid,
      status: 'failed' as const,
      startedAt: new Date('2026-11-23T09:00:00Z'),
      finishedAt: new Date('2026-11-23T09:05:00Z'),
      attempt: 0,
      reason: { code: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
    });

    // The controller first: the pod's final report that follows is too late.
    let first = report(job, { status: 'skipped' });
    const controllerFirst = runs.recordUnreported(job, unreported(`a-${job.id}`));
    const reportAfter = reports.record(job.id, podReport(`a-${job.id}`, 'pod-a'));
    await first;
    await expect(controllerFirst).resolves.toMatchObject({ status: 'failed', exitCode: -1 });
    await expect(reportAfter).rejects.toThrow('came too late');

    // The pod's final report first: the controller then records nothing. (Submitted as the report
    // ingest submits it, without its read of the job first, so that it is in the batch first.)
    first = report(job, { status: 'skipped' });
    const podB = podReport(`b-${job.id}`, 'pod-b');
    const reportFirst = service.recorder.recordFinished(
      job,
      { ...podB, reportKey: 'pod:pod-b:0' },
      true,
      reportClaim(job.id, podB.runUid, true),
    );
    const controllerAfter = runs.recordUnreported(job, unreported(`b-${job.id}`));
    await first;
    await expect(reportFirst).resolves.toMatchObject({ exitCode: 0 });
    await expect(controllerAfter).resolves.toBeNull();

    expect(
      (await rowsOf(job)).filter((row) => row.status !== 'skipped').map((row) => row.report_key),
    ).toEqual([`run:a-${job.id}:unreported`, 'pod:pod-b:0']);
  });

  it('queues the alerts of the batch’s executions whose jobs have alert configurations', async () => {
    const configured = await service.request('PUT', `/api/jobs/${job.id}/alerts`, {
      webhooks: [{ url: 'http://127.0.0.1:9/hook', events: ['success', 'failed'] }],
    });
    expect(configured.status).toBe(200);
    const { value: recorded, loneStatements } = await transactionsDuring(() => {
      const first = report(job, { status: 'skipped' });
      return Promise.all([
        first,
        report(job, { reportKey: `${job.id}-alert-1` }),
        report(otherJob, { reportKey: `${job.id}-quiet` }),
        report(job, { reportKey: `${job.id}-alert-2`, status: 'failed' }),
      ]);
    });
    // Read before the transaction, beside its other reads, not inside it (a round trip the
    // transaction would hold its locks through); and not at all for the first, alone in its
    // transaction, which may not alert (a skipped fire time).
    const configReads = loneStatements.filter((name) => name === 'crondeck_find_alert_configs_with_policy');
    expect(configReads).toHaveLength(1);
    const queued = await service.db.pool.query<{ execution_id: string; event: string }>(
      'SELECT execution_id, event FROM alert_outbox WHERE job_id = ANY ($1::int[]) ORDER BY execution_id',
      [[job.id, otherJob.id]],
    );
    expect(queued.rows.map((row) => [Number(row.execution_id), row.event])).toEqual([
      [recorded[1]!.id, 'success'],
      [recorded[3]!.id, 'failed'],
    ]);
  });
});

function podReport(runUid: string, podUid: string) {
  return {
    podUid,
    runUid,
    attempt: 0,
    final: true,
    status: 'success' as const,
    exitCode: 0,
    stdout: '',
    stderr: '',
    startedAt: new Date('2026-11-23T09:00:00Z'),
    finishedAt: new Date('2026-11-23T09:01:00Z'),
  };
}
