/**
 * A job whose command the kernel refuses to start (one stored before the byte limit, longer than
 * exec takes: E2BIG) fires as any failing job does: its execution ends `failed` with the error as its
 * reason and in its stderr, its alert is queued, and the next run can start. Before, the execution
 * stayed `running` forever and every "run now" answered 409 until a restart.
 */
import { eventually, startTestService, type TestService } from '../support/service';

const TOO_LONG = `echo ${'€'.repeat(65_000)}`;

describe('a command that cannot be started', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it('ends its run as failed with the reason, alerts, and leaves the job free to run again', async () => {
    const created = await service.request('POST', '/api/jobs', {
      name: 'from-before-the-limit',
      schedule: '@daily',
      command: 'true',
    });
    expect(created.status).toBe(201);
    const jobId = created.body.id as number;
    expect(
      await service.request('PUT', `/api/jobs/${jobId}/alerts`, {
        webhooks: [{ url: 'http://127.0.0.1:9/hook', events: ['failed'] }],
        emails: [],
      }),
    ).toMatchObject({ status: 200 });
    // As a job stored before the byte limit holds it: no request can write it any more.
    await service.db.pool.query('UPDATE jobs SET command = $1 WHERE id = $2', [TOO_LONG, jobId]);

    const finishedRuns = async (count: number) => {
      const list = await service.request('GET', `/api/executions?jobId=${jobId}`);
      const done = (list.body as { status: string }[]).filter((execution) => execution.status !== 'running');
      return list.body.length === count && done.length === count ? list.body : null;
    };
    expect((await service.request('POST', `/api/jobs/${jobId}/run`)).status).toBe(200);
    const [execution] = await eventually(() => finishedRuns(1));
    expect(execution).toMatchObject({ status: 'failed', exitCode: 127, reason: 'StartError' });
    expect(execution.reasonMessage).toContain('the command could not be started: spawn E2BIG');
    const read = await service.request('GET', `/api/executions/${execution.id}`);
    expect(read.body.stderr).toBe('[crondeck] could not start the command: spawn E2BIG\n');

    const queued = await eventually(async () => {
      const { rows } = await service.db.pool.query<{ event: string }>(
        'SELECT event FROM alert_outbox WHERE job_id = $1',
        [jobId],
      );
      return rows.length ? rows : null;
    });
    expect(queued).toEqual([{ event: 'failed' }]);

    // The job is not held as running: it can be run again, and its run ends the same way.
    expect((await service.request('POST', `/api/jobs/${jobId}/run`)).status).toBe(200);
    await eventually(() => finishedRuns(2));
  });
});
