import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecuteAttempt } from '../../src/runner/attemptLoop';
import { readProcessStat } from '../../src/runner/processGroup';
import { type ProcessIdentity, thisProcessIdentity } from '../../src/runner/processIdentity';
import { runCommand } from '../../src/runner/runCommand';
import type { Database } from '../../src/store/database';
import { LEADER_LOCK_KEY } from '../../src/runtime/local/leadership';
import { createTestDatabase, onPostgresServer } from '../support/database';
import { endsWithin, isAlive, killQuietly, pidFrom } from '../support/processes';
import { eventually, startTestService, type TestService } from '../support/service';

/**
 * Runs the command for real (with the runtime's wiring that records its process group) but never
 * records its end, as a service killed with SIGKILL would not: the attempt only settles when the
 * test stops that service.
 */
const abandoningRunner: ExecuteAttempt = (job, _attempt, signal, onSpawn) => {
  void runCommand({ command: job.command, timeoutSeconds: 0, onSpawn });
  return new Promise((resolve) =>
    signal.addEventListener('abort', () =>
      resolve({
        status: 'failed',
        exitCode: 143,
        stdout: '',
        stderr: '',
        startedAt: new Date(),
        finishedAt: new Date(),
      }),
    ),
  );
};

describe('processes left running by a service that was killed', () => {
  let db: Database;
  const services: TestService[] = [];
  const pids: number[] = [];
  /** The process the first service registers as (it lives on in this test process): its crash is this one's. */
  let standIn: ChildProcess;
  let standInIdentity: ProcessIdentity;
  beforeEach(async () => {
    db = await createTestDatabase();
    standIn = spawn('sleep', ['600'], { stdio: 'ignore' });
    standInIdentity = {
      ...thisProcessIdentity(),
      pid: standIn.pid!,
      startTicks: readProcessStat(standIn.pid!)!.startTicks,
    };
  });
  afterEach(async () => {
    standIn.kill('SIGKILL');
    for (const pid of pids.splice(0)) killQuietly(pid);
    for (const service of services.splice(0).reverse()) await service.stop();
    await db.close();
  });

  /**
   * The first service's process is gone: its stand-in dies. A crash ends the process's connections
   * too: on a PostgreSQL server, the leader lock of the abandoned service (which lives on in this
   * test process) goes with its session, so the next service leads and cleans up. The embedded
   * database has one process, which always leads.
   */
  const crash = async () => {
    standIn.kill('SIGKILL');
    expect(await endsWithin(standIn.pid!, 5000)).toBe(true);
    if (!onPostgresServer) return;
    await db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = $1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [LEADER_LOCK_KEY],
    );
  };

  const boot = async (local = {}) => {
    const service = await startTestService({ db, local });
    services.push(service);
    return service;
  };
  const row = async (id: number) =>
    (
      await db.pool.query(
        'SELECT process_group, process_start_ticks::text AS ticks, process_boot_id FROM executions WHERE id = $1',
        [id],
      )
    ).rows[0];

  it('are ended at the next start, and the run records how', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crondeck-leftover-'));
    const first = await boot({ execute: abandoningRunner, identity: standInIdentity });
    const job = (
      await first.request('POST', '/api/jobs', {
        name: 'long-backup',
        schedule: '0 0 1 1 *',
        command: `echo $$ > ${dir}/shell.pid; sleep 30 & echo $! > ${dir}/child.pid; wait`,
      })
    ).body;
    expect((await first.request('POST', `/api/jobs/${job.id}/run`)).status).toBe(200);
    const shell = await pidFrom(join(dir, 'shell.pid'));
    const child = await pidFrom(join(dir, 'child.pid'));
    pids.push(shell, child);
    const running = await eventually(
      async () => (await first.request('GET', `/api/jobs/${job.id}`)).body.running,
    );
    // The running row knows the group: the shell leads it, and when and in which boot it started.
    const recorded = await eventually(async () => {
      const r = await row(running.executionId);
      return r.process_group !== null && r;
    });
    const stat = readFileSync(`/proc/${shell}/stat`, 'utf8');
    expect(recorded).toEqual({
      process_group: shell,
      ticks: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19],
      process_boot_id: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
    });

    // The first service is gone without its stop path; a new one starts on the same database.
    await crash();
    const second = await boot();
    expect(await endsWithin(shell, 2000)).toBe(true);
    expect(await endsWithin(child, 2000)).toBe(true);
    const detail = (await second.request('GET', `/api/executions/${running.executionId}`)).body;
    expect(detail).toMatchObject({
      status: 'failed',
      exitCode: 143,
      startedAt: running.startedAt,
      attempt: 0,
      reason: 'ServiceStopped',
    });
    expect(detail.stderr).toContain('the service stopped during this run');
    expect(detail.stderr).toContain('its remaining processes were ended with SIGTERM');
    expect((await second.request('GET', `/api/jobs/${job.id}`)).body).toMatchObject({
      running: null,
      lastStatus: 'failed',
    });
    expect(
      second.logger.lines.find((l) => l.msg === 'ended processes left running by the previous stop'),
    ).toMatchObject({
      executionId: running.executionId,
      processGroup: shell,
      exitCode: 143,
    });
  });

  it('are left alone when the recorded group is not theirs any more', async () => {
    const first = await boot({ execute: abandoningRunner, identity: standInIdentity });
    const dir = mkdtempSync(join(tmpdir(), 'crondeck-leftover-'));
    const job = (
      await first.request('POST', '/api/jobs', {
        name: 'reused',
        schedule: '0 0 1 1 *',
        command: `echo $$ > ${dir}/shell.pid; exec sleep 30`,
      })
    ).body;
    await first.request('POST', `/api/jobs/${job.id}/run`);
    const shell = await pidFrom(join(dir, 'shell.pid'));
    pids.push(shell);
    const running = await eventually(
      async () => (await first.request('GET', `/api/jobs/${job.id}`)).body.running,
    );
    await eventually(async () => (await row(running.executionId)).process_group !== null);
    // As if the group's id had been handed to another process since: its leader started later.
    await db.pool.query('UPDATE executions SET process_start_ticks = process_start_ticks - 1 WHERE id = $1', [
      running.executionId,
    ]);

    await crash();
    const second = await boot();
    // On a server the new service closes the run once it has taken the lead.
    const detail = await eventually(async () => {
      const answer = (await second.request('GET', `/api/executions/${running.executionId}`)).body;
      return answer.status !== 'running' && answer;
    });
    expect(detail).toMatchObject({ status: 'failed', exitCode: -1 });
    expect(detail.stderr).toContain('its processes had ended by the next start');
    expect(isAlive(shell)).toBe(true);
  });
});
