import { type ChildProcess, spawn } from 'node:child_process';
import type { Job } from '../../src/domain/job';
import { readProcessGroup } from '../../src/runner/processGroup';
import { thisProcessIdentity } from '../../src/runner/processIdentity';
import { findJob } from '../../src/store/jobs';
import type { Database } from '../../src/store/database';
import { registerProcess } from '../../src/store/serviceProcesses';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import { isAlive } from '../support/processes';
import { startTestService, type TestService } from '../support/service';

/**
 * Runs owned by a process on another machine: the leader can neither look its PID up nor signal
 * its processes, so only the owner's heartbeat says whether it lives.
 */
describe('runs of a process on another machine', () => {
  let db: Database;
  let service: TestService;
  let clock: ManualClock;
  let job: Job;
  /** A process of this machine standing for the other machine's job, which must not be signalled. */
  let lookalike: ChildProcess;

  beforeEach(async () => {
    clock = new ManualClock('2026-06-01T10:00:30Z');
    // No heartbeat of its own during the test: it looks when the test says (`sweep`).
    db = await createTestDatabase();
    service = await startTestService({ db, clock, local: { heartbeatMs: 600_000, ownerTimeoutMs: 5000 } });
    const created = await service.request('POST', '/api/jobs', {
      name: 'remote',
      schedule: '* * * * *',
      command: 'true',
    });
    job = (await findJob(service.db.pool, created.body.id))!;
    lookalike = spawn('sleep', ['600'], { stdio: 'ignore', detached: true });
  });
  afterEach(async () => {
    lookalike.kill('SIGKILL');
    await service.stop();
    await db.close();
  });

  /** Registers a process of another machine whose PID happens to be one of this machine's. */
  const otherMachineRunning = async () => {
    const owner = await registerProcess(service.db.pool, {
      ...thisProcessIdentity(),
      host: 'elsewhere',
      bootId: 'another-boot',
      pid: lookalike.pid!,
    });
    const executionId = await service.recorder.start(job, 0, clock.now(), owner);
    await service.recorder.recordProcessGroup(executionId, readProcessGroup(lookalike.pid!)!);
    return { owner, executionId };
  };
  const silence = (owner: number) =>
    service.db.pool.query(
      `UPDATE service_processes SET heartbeat_at = now() - interval '1 hour' WHERE id = $1`,
      [owner],
    );
  const execution = async (id: number) => (await service.request('GET', `/api/executions/${id}`)).body;

  it('are left running while it beats, and the job is not started a second time beside them', async () => {
    const { executionId } = await otherMachineRunning();
    await service.local.sweep();
    expect(await execution(executionId)).toMatchObject({ status: 'running' });
    await service.local.tick(clock.set('2026-06-01T10:01:00Z'));
    await service.local.idle();
    const finished = (await service.request('GET', `/api/executions?jobId=${job.id}`)).body;
    expect(finished).toMatchObject([{ status: 'skipped' }]);
    const running = (await service.request('GET', `/api/executions?jobId=${job.id}&status=running`)).body;
    expect(running).toMatchObject([{ id: executionId, status: 'running' }]);
  });

  it('are recorded as interrupted, once, when it falls silent, and its lookalike PID is left alone', async () => {
    const { owner, executionId } = await otherMachineRunning();
    await silence(owner);
    await service.local.sweep();
    const closed = await execution(executionId);
    expect(closed).toMatchObject({ status: 'failed', exitCode: -1 });
    expect(closed.stderr).toContain('stopped giving signs of life on another machine');
    expect(isAlive(lookalike.pid!)).toBe(true);
    // Its registration is forgotten with its last run; looking again records nothing more.
    const { rows } = await service.db.pool.query('SELECT id FROM service_processes WHERE id = $1', [owner]);
    expect(rows).toEqual([]);
    await service.local.sweep();
    const metrics = (await service.request('GET', '/metrics')).text;
    expect(metrics).toContain('service_executions_total{status="failed"} 1');
    expect(
      service.logger.lines.filter((line) => line.msg === 'closed runs of processes that are gone as failed'),
    ).toHaveLength(1);
  });

  it('registers the service while it runs, and unregisters it when it stops', async () => {
    const registered = async () =>
      (await db.pool.query('SELECT pid FROM service_processes')).rows.map((row) => row.pid);
    expect(await registered()).toEqual([process.pid]);
    await service.stop();
    expect(await registered()).toEqual([]);
  });
});
