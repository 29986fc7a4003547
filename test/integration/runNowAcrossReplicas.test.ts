import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChildService, startChildService } from '../support/childService';
import { onPostgresServer } from '../support/database';
import { eventually } from '../support/service';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwawayPostgres';

/**
 * One run of a job at a time, whichever replica is asked (issue 38, defect 7): two services, each a
 * process of its own, on one PostgreSQL database (PGlite serves one process only, so this needs a
 * server). The leader looks for the other's run requests every five seconds, so that a request is
 * usually still waiting for it when the next one comes.
 */
const TIMINGS = { leaderRetryMs: 200, syncIntervalMs: 5000 };

describe('run-now through either of two replicas', () => {
  let postgres: ThrowawayPostgres | undefined;
  let dir: string;
  let leader: ChildService;
  let follower: ChildService;

  beforeAll(async () => {
    if (!onPostgresServer) return;
    postgres = await startThrowawayPostgres();
    dir = mkdtempSync(join(tmpdir(), 'crondeck-run-now-'));
    leader = await startChildService(postgres.url, TIMINGS);
    await leader.waitForLog((line) => line.msg === 'leading: this process fires jobs');
    follower = await startChildService(postgres.url, TIMINGS);
  }, 60_000);
  afterAll(async () => {
    leader?.kill();
    follower?.kill();
    await postgres?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** A job whose run notes each start and then waits until the test releases it. */
  const heldJob = async (name: string) => {
    const started = join(dir, `${name}.started`);
    const release = join(dir, `${name}.release`);
    const job = (
      await leader.request('POST', '/api/jobs', {
        name,
        schedule: '0 0 1 1 *',
        // Also ends when the test's folder is gone: a failed test never releases it.
        command: `echo run >> ${started}; while [ ! -f ${release} ] && [ -d ${dir} ]; do sleep 0.05; done`,
      })
    ).body as { id: number };
    return {
      id: job.id,
      starts: () =>
        existsSync(started) ? readFileSync(started, 'utf8').split('\n').filter(Boolean).length : 0,
      release: () => writeFileSync(release, ''),
    };
  };
  const runNow = (service: ChildService, jobId: number) => service.request('POST', `/api/jobs/${jobId}/run`);
  const executionsOf = async (jobId: number, running = false) =>
    (await follower.request('GET', `/api/executions?jobId=${jobId}${running ? '&status=running' : ''}`))
      .body as { status: string; attempt: number }[];
  /** The job's finished executions once none of its attempts is running and `count` have finished. */
  const finished = async (jobId: number, count: number) => {
    if ((await executionsOf(jobId, true)).length > 0) return false;
    const done = await executionsOf(jobId);
    return done.length >= count && done;
  };
  const alreadyRunning = (name: string) => ({
    error: `job "${name}" is already running; wait for its run to finish`,
  });

  it('starts one run for three requests through the replica that does not lead, and refuses the others', async () => {
    if (!onPostgresServer) return;
    const job = await heldJob('three-through-follower');
    const answers = [];
    for (let n = 0; n < 3; n++) {
      if (n > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      answers.push(await runNow(follower, job.id));
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 409, 409]);
    expect(answers[1]!.body).toEqual(alreadyRunning('three-through-follower'));
    await eventually(async () => job.starts() === 1, 20_000);
    // While it runs, neither replica starts another.
    expect((await runNow(leader, job.id)).status).toBe(409);
    expect((await runNow(follower, job.id)).status).toBe(409);
    job.release();
    expect(await eventually(() => finished(job.id, 1), 20_000)).toMatchObject([{ status: 'success' }]);
    expect(job.starts()).toBe(1);
    // Once it has ended, the job can be run again, through either.
    expect((await runNow(follower, job.id)).status).toBe(200);
    await eventually(() => finished(job.id, 2), 20_000);
    expect(job.starts()).toBe(2);
  }, 60_000);

  it('refuses a run through the leader while a request through the other replica waits for it', async () => {
    if (!onPostgresServer) return;
    const job = await heldJob('pending-then-leader');
    expect((await runNow(follower, job.id)).status).toBe(200);
    const second = await runNow(leader, job.id);
    expect(second.status).toBe(409);
    expect(second.body).toEqual(alreadyRunning('pending-then-leader'));
    await eventually(async () => job.starts() === 1, 20_000);
    job.release();
    await eventually(() => finished(job.id, 1), 20_000);
    expect(job.starts()).toBe(1);
  }, 60_000);

  it('refuses a run through the other replica while the leader’s run waits to retry', async () => {
    if (!onPostgresServer) return;
    const job = (
      await leader.request('POST', '/api/jobs', {
        name: 'retrying',
        schedule: '0 0 1 1 *',
        command: 'exit 1',
        retry: { maxAttempts: 1, baseDelay: 3600 },
      })
    ).body as { id: number };
    expect((await runNow(leader, job.id)).status).toBe(200);
    // Its first attempt failed; the second waits an hour: no attempt is running, yet the run goes on.
    await eventually(() => finished(job.id, 1), 20_000);
    const answer = await runNow(follower, job.id);
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual(alreadyRunning('retrying'));
    expect((await runNow(leader, job.id)).status).toBe(409);
  }, 60_000);
});
