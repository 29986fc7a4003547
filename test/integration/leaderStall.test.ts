import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { type ChildService, startChildService } from '../support/childService';
import { onPostgresServer } from '../support/database';
import { endsWithin, isAlive, killQuietly, pidFrom } from '../support/processes';
import { eventually } from '../support/service';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/throwawayPostgres';

/**
 * Two services, each a process of its own, on a PostgreSQL cluster of the test's own, which the
 * test stops and starts again. The timings are short (a heartbeat every 200 ms, an owner given up
 * after 1.5 s without one) so that a stall outlasts them.
 */
const TIMINGS = { leaderRetryMs: 200, syncIntervalMs: 200, heartbeatMs: 200, ownerTimeoutMs: 1500 };

const ENDED = 'ended processes left running by the previous stop';

describe('a leader that stalls or dies', () => {
  let postgres: ThrowawayPostgres | undefined;
  let dir: string;
  const services: ChildService[] = [];
  const pids: number[] = [];

  beforeEach(async () => {
    if (!onPostgresServer) return;
    postgres = await startThrowawayPostgres();
    dir = mkdtempSync(join(tmpdir(), 'crondeck-stall-'));
  }, 60_000);
  afterEach(async () => {
    for (const service of services.splice(0)) {
      try {
        process.kill(service.pid, 'SIGCONT');
      } catch {
        // Gone already.
      }
      service.kill();
    }
    for (const pid of pids.splice(0)) killQuietly(pid);
    await postgres?.remove();
    postgres = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const boot = async () => {
    const service = await startChildService(postgres!.url, TIMINGS);
    services.push(service);
    return service;
  };

  /** Starts `count` jobs of `seconds` each on the leader; resolves to their ids and shells' pids. */
  const startRuns = async (leader: ChildService, count: number, seconds: number) => {
    const runs: { jobId: number; shell: number; child: number }[] = [];
    for (let n = 0; n < count; n++) {
      const job = (
        await leader.request('POST', '/api/jobs', {
          name: `long-${n}`,
          schedule: '0 0 1 1 *',
          command: `echo $$ > ${dir}/shell-${n}.pid; sleep ${seconds} & echo $! > ${dir}/child-${n}.pid; wait; echo finished`,
        })
      ).body;
      expect((await leader.request('POST', `/api/jobs/${job.id}/run`)).status).toBe(200);
      const shell = await pidFrom(join(dir, `shell-${n}.pid`));
      const child = await pidFrom(join(dir, `child-${n}.pid`));
      pids.push(shell, child);
      await eventually(() => processGroupRecorded(job.id));
      runs.push({ jobId: job.id, shell, child });
    }
    return runs;
  };

  /**
   * Whether the job's attempt in progress has its process group written down. The runner writes
   * it just after the command spawned: a leader killed before that leaves processes that no one
   * can tell are its run's, which is not what these tests are about.
   */
  const processGroupRecorded = async (jobId: number) => {
    const client = new Client({ connectionString: postgres!.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT 1 FROM executions WHERE job_id = $1 AND status = 'running' AND process_group IS NOT NULL`,
        [jobId],
      );
      return rows.length === 1;
    } finally {
      await client.end();
    }
  };

  /** The job's finished executions, or with `running` its attempts in progress (`?status=running`). */
  const executionsOf = async (service: ChildService, jobId: number, running = false) =>
    (await service.request('GET', `/api/executions?jobId=${jobId}${running ? '&status=running' : ''}`))
      .body as {
      id: number;
      status: string;
      exitCode: number;
    }[];

  /** The job's finished executions once it has some and none of its attempts is running any more. */
  const finishedExecutionsOf = async (service: ChildService, jobId: number) => {
    if ((await executionsOf(service, jobId, true)).length > 0) return false;
    const finished = await executionsOf(service, jobId);
    return finished.length > 0 && finished;
  };

  it('leaves the runs of a stalled leader to it, and it records them when it resumes', async () => {
    if (!onPostgresServer) return;
    const a = await boot();
    await a.waitForLog((line) => line.msg === 'leading: this process fires jobs');
    const b = await boot();
    const runs = await startRuns(a, 3, 20);

    // The leader stalls; meanwhile the database goes away and comes back, which ends its session
    // and so frees the leader lock for the other process.
    process.kill(a.pid, 'SIGSTOP');
    await postgres!.halt();
    await new Promise((resolve) => setTimeout(resolve, 4000));
    await postgres!.resume();
    await b.waitForLog((line) => line.msg === 'leading: this process fires jobs', 30_000);
    // The new leader has looked at the stalled one's runs after its heartbeat ran out.
    await b.waitForLog(
      (line) =>
        line.msg === ENDED ||
        (line.msg === 'a process that stopped beating is alive here' && line.pid === a.pid),
      30_000,
    );
    expect(b.lines.filter((line) => line.msg === ENDED)).toEqual([]);
    for (const run of runs) expect([isAlive(run.shell), isAlive(run.child)]).toEqual([true, true]);
    for (const run of runs) {
      expect(await executionsOf(b, run.jobId, true)).toMatchObject([{ status: 'running' }]);
    }

    process.kill(a.pid, 'SIGCONT');
    await a.waitForLog((line) => line.msg === 'no longer leading: this process stops firing jobs', 30_000);
    for (const run of runs) {
      const [execution, ...more] = await eventually(() => finishedExecutionsOf(b, run.jobId), 40_000);
      expect(more).toEqual([]);
      expect(execution).toMatchObject({ status: 'success', exitCode: 0 });
      const detail = (await b.request('GET', `/api/executions/${execution!.id}`)).body;
      expect(detail.stdout).toBe('finished\n');
    }
    const metrics = await (await fetch(`${await urlOf(b)}/metrics`)).text();
    expect(metrics).toContain('service_executions_total{status="success"} 3');
    expect(metrics).toContain('service_executions_total{status="failed"} 0');
  }, 120_000);

  it('records the runs of a killed leader as interrupted, once, from the new leader', async () => {
    if (!onPostgresServer) return;
    const a = await boot();
    await a.waitForLog((line) => line.msg === 'leading: this process fires jobs');
    const b = await boot();
    const [run] = await startRuns(a, 1, 30);

    process.kill(a.pid, 'SIGKILL');
    await b.waitForLog((line) => line.msg === 'leading: this process fires jobs', 30_000);
    expect(await endsWithin(run!.shell, 20_000)).toBe(true);
    expect(await endsWithin(run!.child, 5_000)).toBe(true);
    const [execution, ...more] = await eventually(() => finishedExecutionsOf(b, run!.jobId), 20_000);
    expect(more).toEqual([]);
    expect(execution).toMatchObject({ status: 'failed', exitCode: 143 });
    const detail = (await b.request('GET', `/api/executions/${execution!.id}`)).body;
    expect(detail.stderr).toContain('its remaining processes were ended with SIGTERM');
    // Later looks of the new leader find nothing more to close.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(b.lines.filter((line) => line.msg === ENDED)).toHaveLength(1);
    const metrics = await (await fetch(`${await urlOf(b)}/metrics`)).text();
    expect(metrics).toContain('service_executions_total{status="failed"} 1');
  }, 120_000);
});

async function urlOf(service: ChildService): Promise<string> {
  return String((await service.waitForLog((line) => line.msg === 'crondeck is listening')).url);
}
