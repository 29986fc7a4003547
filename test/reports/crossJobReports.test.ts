import { reportTokenFor } from '../../src/domain/reportToken';
import { ClusterRunRecorder } from '../../src/scheduling/clusterRunRecorder';
import { findJob } from '../../src/store/jobs';
import { startTestService, type TestService } from '../support/service';

const SECRET = 'a-report-secret-of-at-least-32-characters';

/**
 * One job's report token holds for that job's runs only: whatever a report sent with it names (a
 * pod, a run), it cannot make another job's report a duplicate, close another job's run, or keep
 * the controller from recording one.
 */
describe('a report token cannot touch another job’s runs', () => {
  let service: TestService;
  let runs: ClusterRunRecorder;
  let mine: number;
  let theirs: number;

  const report = (podUid: string, runUid: string, overrides: Record<string, unknown> = {}) => ({
    podUid,
    runUid,
    attempt: 0,
    final: true,
    status: 'failed',
    exitCode: 1,
    startedAt: '2026-11-23T10:00:00.000Z',
    finishedAt: '2026-11-23T10:00:01.000Z',
    ...overrides,
  });
  /** A report for job `jobId`, sent with that job's own (valid) token. */
  const post = (jobId: number, body: unknown) =>
    service.request('POST', `/api/jobs/${jobId}/reports`, body, {
      authorization: `Bearer ${reportTokenFor(SECRET, jobId)}`,
    });
  const rowsOf = async (jobId: number) =>
    (
      await service.db.pool.query('SELECT status, report_key FROM executions WHERE job_id = $1 ORDER BY id', [
        jobId,
      ])
    ).rows;
  const unreported = (runUid: string) => ({
    runUid,
    status: 'timeout' as const,
    startedAt: new Date('2026-11-23T10:00:00Z'),
    finishedAt: new Date('2026-11-23T10:05:00Z'),
    attempt: 0,
    reason: { code: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' },
  });

  beforeAll(async () => {
    service = await startTestService({ env: { SERVICE_REPORT_SECRET: SECRET } });
    runs = new ClusterRunRecorder(service.recorder);
  });
  beforeEach(async () => {
    const create = async (name: string) =>
      (await service.request('POST', '/api/jobs', { name, schedule: '@daily', command: 'true' })).body.id;
    const suffix = `${Date.now()}-${Math.random()}`.replace('.', '');
    mine = await create(`mine-${suffix}`);
    theirs = await create(`theirs-${suffix}`);
  });
  afterAll(async () => {
    await service.stop();
  });

  it('stores the other job’s own report although a report of mine named its pod and run first', async () => {
    expect((await post(mine, report('their-pod', 'their-run'))).status).toBe(201);
    const own = await post(theirs, report('their-pod', 'their-run', { exitCode: 7 }));
    expect(own).toMatchObject({ status: 201, body: { duplicate: false } });
    expect(await rowsOf(theirs)).toEqual([{ status: 'failed', report_key: 'pod:their-pod:0' }]);
    expect((await service.request('GET', `/api/executions/${own.body.id}`)).body).toMatchObject({
      jobId: theirs,
      exitCode: 7,
    });
  });

  it('lets the controller record the other job’s run that a report of mine claimed to close', async () => {
    expect((await post(mine, report('some-pod', 'run-never-reported'))).status).toBe(201);
    const recorded = await runs.recordUnreported(
      (await findJob(service.db.pool, theirs))!,
      unreported('run-never-reported'),
    );
    expect(recorded).toMatchObject({ jobId: theirs, status: 'timeout' });
    expect(await rowsOf(theirs)).toEqual([
      { status: 'timeout', report_key: 'run:run-never-reported:unreported' },
    ]);
  });

  it('refuses (409) a report naming a run that the controller saw as another job’s', async () => {
    await runs.registerRun(theirs, 'run-seen');
    const forged = await post(mine, report('forged-pod', 'run-seen'));
    expect(forged).toMatchObject({
      status: 409,
      body: { error: `run run-seen is a run of another job, not of job ${mine}` },
    });
    // A retry of an earlier attempt, not final, is refused alike.
    expect((await post(mine, report('forged-pod', 'run-seen', { final: false }))).status).toBe(409);
    expect(await rowsOf(mine)).toEqual([]);
    expect((await post(theirs, report('their-pod', 'run-seen'))).status).toBe(201);
    expect(await rowsOf(theirs)).toHaveLength(1);

    // The controller's own record of a run tells its job just as well.
    await runs.recordUnreported((await findJob(service.db.pool, theirs))!, unreported('run-recorded'));
    expect((await post(mine, report('late-pod', 'run-recorded'))).status).toBe(409);
    expect(await rowsOf(mine)).toEqual([]);
    expect(
      service.logger.lines.some((line) => line.msg === 'pod report refused' && line.status === 409),
    ).toBe(true);
  });

  it('registers a run once, and still refuses a late report of its own job after the controller recorded it', async () => {
    await runs.registerRun(theirs, 'run-twice');
    await runs.registerRun(theirs, 'run-twice');
    expect((await post(theirs, report('p', 'run-twice', { final: false }))).status).toBe(201);
    await runs.recordUnreported((await findJob(service.db.pool, theirs))!, unreported('run-twice'));
    expect((await post(theirs, report('p', 'run-twice', { attempt: 1 }))).status).toBe(409);
    expect((await rowsOf(theirs)).map((row) => row.status)).toEqual(['failed', 'timeout']);
  });
});
