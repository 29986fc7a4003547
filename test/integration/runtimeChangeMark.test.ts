import { poolRuntimeStore } from '../../src/runtime/local/localRuntimeStore';
import { findJob } from '../../src/store/jobs';
import { startTestService, type TestService } from '../support/service';

/**
 * The local runtime re-reads the jobs that changed when its change mark moves (another replica edited one). A
 * recorded run changes the job list (its last run) but no definition: it must leave the mark alone,
 * or every second of recording would re-parse every schedule.
 */
describe("the local runtime's change mark", () => {
  let service: TestService;
  let mark: () => Promise<string>;
  let jobId: number;

  beforeAll(async () => {
    service = await startTestService();
    mark = poolRuntimeStore(service.db.pool).readChangeMark;
    const created = await service.request('POST', '/api/jobs', {
      name: 'marked',
      schedule: '@daily',
      command: 'true',
    });
    jobId = created.body.id;
  });
  afterAll(async () => {
    await service.stop();
  });

  it('stays put while runs are recorded', async () => {
    const before = await mark();
    const job = (await findJob(service.db.pool, jobId))!;
    const now = new Date();
    const recorded = await service.recorder.recordFinished(
      job,
      { status: 'success', exitCode: 0, stdout: '', stderr: '', startedAt: now, finishedAt: now, attempt: 0 },
      true,
    );
    expect(recorded).not.toBeNull();
    expect((await findJob(service.db.pool, jobId))!.lastStatus).toBe('success');
    expect(await mark()).toBe(before);
  });

  it('moves when a job is edited, created or deleted, through the API or behind its back', async () => {
    let before = await mark();
    expect(
      (
        await service.request('PUT', `/api/jobs/${jobId}`, {
          name: 'marked',
          schedule: '@hourly',
          command: 'true',
        })
      ).status,
    ).toBe(200);
    expect(await mark()).not.toBe(before);

    before = await mark();
    await service.db.pool.query("UPDATE jobs SET command = 'echo edited' WHERE id = $1", [jobId]);
    expect(await mark()).not.toBe(before);

    before = await mark();
    const other = await service.request('POST', '/api/jobs', {
      name: 'other',
      schedule: '@daily',
      command: 'true',
    });
    expect(await mark()).not.toBe(before);

    before = await mark();
    expect((await service.request('DELETE', `/api/jobs/${other.body.id}`)).status).toBe(200);
    expect(await mark()).not.toBe(before);
  });

  it('moves when the scheduler is paused', async () => {
    const before = await mark();
    expect((await service.request('POST', '/api/scheduler/pause', {})).status).toBe(200);
    expect(await mark()).not.toBe(before);
    await service.request('POST', '/api/scheduler/resume', {});
  });
});
