import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../support/cliServe';
import { ManualClock } from '../support/clock';
import { TURNED_LATE_AFTER_SKIP_REASON } from '../../src/store/migrations/027_runs_complete_inferred_skips';
import { claimSlot } from '../../src/store/slots';
import { type Database, withTransaction } from '../../src/store/database';
import { createTestDatabase } from '../support/database';
import { killQuietly, pidFrom } from '../support/processes';
import { eventually, startTestService, type TestService } from '../support/service';
import type { SlotJson } from '../support/slotJson';

const MINUTE_MS = 60_000;

/** GETs `path` of the service at `url`, JSON. */
async function get<T>(url: string, path: string): Promise<T> {
  const response = await fetch(url + path);
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * A fire time that came while the job's previous run was still going is `skipped` (DESIGN.md), also
 * when no process was there to write its `skipped` row: a service killed while runs were in
 * progress, restarted after their next fire times (issue 38).
 */
describe('slots of a service killed while runs were going', () => {
  const dir = mkdtempSync(join(tmpdir(), 'crondeck-crash-slots-'));
  const pids: number[] = [];
  let running: ReturnType<typeof serve> | null = null;
  afterAll(async () => {
    if (running && running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
    for (const pid of pids) killQuietly(pid);
    rmSync(dir, { recursive: true, force: true });
  });

  it('judges the fire times passed while down skipped for a job whose run was going, missed for one idle', async () => {
    const dataDir = join(dir, 'data');
    running = serve(dataDir, {});
    let url = String((await running.waitForLog('crondeck is listening')).url);
    const create = async (body: Record<string, unknown>) => {
      const response = await fetch(`${url}/api/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ schedule: '* * * * *', lateAfterSeconds: 5, ...body }),
      });
      expect(response.status).toBe(201);
      return (await response.json()) as { id: number };
    };
    const long = await create({ name: 'long', command: `echo $$ > ${dir}/long.pid; exec sleep 600` });
    const idle = await create({ name: 'idle', command: 'true' });

    // The next minute fires both; the long one's run goes on.
    const fire = await eventually(async () => {
      const job = await get<{ running: { startedAt: string } | null; lastRun: string | null }>(
        url,
        `/api/jobs/${long.id}`,
      );
      return job.running && new Date(job.running.startedAt);
    }, 90_000);
    pids.push(await pidFrom(join(dir, 'long.pid')));
    // Killed two seconds after the fire, with no chance to write anything more.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    running.child.kill('SIGKILL');
    await running.exited;

    // Down over the next fire time, then started again on the same data.
    const passed = new Date(Math.floor(fire.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS);
    await eventually(async () => Date.now() > passed.getTime() + 1000, 90_000);
    running = serve(dataDir, {});
    url = String((await running.waitForLog('crondeck is listening')).url);

    const slotAt = async (jobId: number) => {
      const at = passed.toISOString();
      const [slot] = await get<SlotJson[]>(url, `/api/jobs/${jobId}/slots?from=${at}&to=${at}`);
      return slot;
    };
    const skipped = await eventually(() => slotAt(long.id), 30_000);
    const missed = await eventually(() => slotAt(idle.id), 30_000);
    expect(skipped).toMatchObject({
      scheduledAt: passed.toISOString(),
      outcome: 'skipped',
      executionIds: [],
    });
    expect(skipped.reason).toMatch(/^the previous run of this job \(execution \d+\) was still in progress$/);
    expect(missed).toMatchObject({ scheduledAt: passed.toISOString(), outcome: 'missed' });
    expect(missed.reason).toContain('the service was not running');
    // The run the crash left is closed once, as failed, by the new start.
    const executions = await get<{ status: string; jobId: number }[]>(
      url,
      `/api/executions?jobId=${long.id}`,
    );
    expect(executions.filter((execution) => execution.status === 'failed')).toHaveLength(1);

    running.child.kill('SIGTERM');
    await running.exited;
  }, 300_000);
});

/**
 * The same rule at the judge, with a clock of the test's: attempts going while no process recorded
 * the fire times (one still running, one a start closed as its crashed service's) cover the fire
 * times from their start to their end; a run finished by a live service is not looked at (that
 * service wrote what its fire times found).
 */
describe('the judge and the attempts no process watched', () => {
  interface Context {
    db: Database;
    clock: ManualClock;
    service: TestService;
    jobId: number;
  }

  /** `work` with a service of its own (its clock at 10:00:30) and an every-minute job, `name`. */
  async function withEveryMinuteJob(name: string, work: (context: Context) => Promise<void>): Promise<void> {
    const db = await createTestDatabase();
    const clock = new ManualClock('2026-06-01T10:00:30Z');
    const service = await startTestService({ db, clock });
    try {
      const job = await service.request('POST', '/api/jobs', {
        name,
        schedule: '* * * * *',
        command: 'true',
      });
      await work({ db, clock, service, jobId: job.body.id });
    } finally {
      await service.stop();
      await db.close();
    }
  }

  /** An attempt for the 10:01 slot, started by a service that is gone, never finished: its id. */
  async function attemptLeftRunning({ db, jobId }: Context): Promise<number> {
    const { rows } = await db.pool.query(
      `INSERT INTO executions (job_id, job_name, status, started_at, attempt, scheduled_at, trigger)
       SELECT id, name, 'running', '2026-06-01T10:01:00.200Z', 0, '2026-06-01T10:01:00Z', 'schedule'
         FROM jobs WHERE id = $1
       RETURNING id`,
      [jobId],
    );
    return Number(rows[0].id);
  }

  const slotsOf = async ({ service, jobId }: Context) =>
    ((await service.request('GET', `/api/jobs/${jobId}/slots`)).body as SlotJson[]).reverse();

  it('judges the fire times within them skipped, and those after them missed', () =>
    withEveryMinuteJob('going', async (context) => {
      const { clock, service } = context;
      const id = await attemptLeftRunning(context);
      expect(await service.local.judgeSlots(clock.set('2026-06-01T10:04:00Z'))).toBe(3);
      // The next start closes it, as the crashed service's, at 10:04:30.
      await service.recorder.closeAbandoned(
        clock.set('2026-06-01T10:04:30Z'),
        new Map([[id, { exitCode: 143, note: '\n[test] closed\n' }]]),
      );
      expect(await service.local.judgeSlots(clock.set('2026-06-01T10:07:00Z'))).toBe(3);
      const going = `the previous run of this job (execution ${id}) was still in progress`;
      expect(
        (await slotsOf(context)).map((slot) => [slot.scheduledAt.slice(11, 16), slot.outcome, slot.reason]),
      ).toEqual([
        ['10:01', 'ran', null],
        ['10:02', 'skipped', going],
        ['10:03', 'skipped', going],
        ['10:04', 'skipped', going],
        ['10:05', 'missed', expect.stringContaining('the service was not running')],
        ['10:06', 'missed', expect.stringContaining('the service was not running')],
      ]);
    }));

  it('turns a fire time judged skipped for an attempt in progress late when its own run or claim arrives', () =>
    // A run recorded while its slot is judged waits for the judgement and then completes the slot
    // (migration 019's lock): on a PostgreSQL server that judgement may have found only the earlier
    // attempt still going (test/integration/slotLocks.test.ts races it there).
    withEveryMinuteJob('overlap', async (context) => {
      const { db, clock, service, jobId } = context;
      await attemptLeftRunning(context);
      // 10:01 ran; 10:02 and 10:03 found it going.
      expect(await service.local.judgeSlots(clock.set('2026-06-01T10:04:00Z'))).toBe(3);
      const run = await service.recorder.recordReport(
        jobId,
        {
          status: 'success',
          startedAt: new Date('2026-06-01T10:02:05Z'),
          finishedAt: new Date('2026-06-01T10:02:06Z'),
          exitCode: 0,
          stdout: '',
          stderr: '',
          attempt: 0,
          reportKey: 'pod:overlap-0202:0',
          slot: { scheduledAt: new Date('2026-06-01T10:02:00Z'), trigger: 'schedule' },
        },
        true,
      );
      await withTransaction(db.pool, (tx) =>
        claimSlot(tx, {
          jobId,
          scheduledAt: new Date('2026-06-01T10:03:00Z'),
          runKey: 'pod-uid-0203',
          allowDuplicates: false,
          at: new Date('2026-06-01T10:03:10Z'),
        }),
      );
      expect(
        (await slotsOf(context)).map((slot) => [
          slot.scheduledAt.slice(11, 16),
          slot.outcome,
          slot.executionIds,
          slot.reason,
        ]),
      ).toEqual([
        ['10:01', 'ran', [expect.any(Number)], null],
        ['10:02', 'late', [run!.id], TURNED_LATE_AFTER_SKIP_REASON],
        ['10:03', 'late', [], TURNED_LATE_AFTER_SKIP_REASON],
      ]);
    }));

  it('leaves a fire time during a run finished by a live service to what that service wrote', () =>
    withEveryMinuteJob('watched', async (context) => {
      const { db, clock, service, jobId } = context;
      // A run from 10:01 to 10:03:30 that its service finished: it wrote no skipped row for 10:02
      // or 10:03 because it did not fire then (a stall), so they stay missed, as ever.
      await db.pool.query(
        `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code,
                                 attempt, scheduled_at, trigger)
         VALUES ($1, 'watched', 'success', '2026-06-01T10:01:00Z', '2026-06-01T10:03:30Z', 150000, 0, 0,
                 '2026-06-01T10:01:00Z', 'schedule')`,
        [jobId],
      );
      await service.local.judgeSlots(clock.set('2026-06-01T10:05:00Z'));
      expect(
        (await slotsOf(context)).map((slot) => `${slot.scheduledAt.slice(11, 16)} ${slot.outcome}`),
      ).toEqual(['10:01 ran', '10:02 missed', '10:03 missed', '10:04 missed']);
    }));
});
