import { outboxHook } from '../../src/alerts/outboxHook';
import { systemClock } from '../../src/domain/clock';
import { reviseWaitingAlerts } from '../../src/store/alertReasons';
import { saveAlertConfig } from '../../src/store/alerts';
import { type Database, withTransaction } from '../../src/store/database';
import { insertJob } from '../../src/store/jobs';
import { createTestDatabase } from '../support/database';
import { createMemoryLogger } from '../support/memoryLogger';

/**
 * A cluster run killed or stopped waits up to a minute for the controller to say why (OOMKilled...)
 * before its alerts go. The alert policy's alerts about that run (here the suspension it causes)
 * wait with the spec's, and take the reason when it comes.
 */
describe('the policy’s alerts about a run that waits for its cluster reason', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('wait as the failure alert does, and are sent on with the reason', async () => {
    const job = await insertJob(db.pool, {
      name: 'oom-prone',
      schedule: '@daily',
      command: 'make report',
      timeout: 0,
      retry: null,
      description: null,
      tags: [],
      timezone: null,
      enabled: true,
      lateAfterSeconds: 60,
      catchUp: null,
      allowDuplicateSlots: false,
    });
    await saveAlertConfig(
      db.pool,
      job.id,
      {
        webhooks: [{ url: 'https://hooks.example.com/x', events: ['failed', 'suspended'] }],
        emails: [],
        policy: { suspendAfterFailures: 1 },
      },
      'api',
    );
    const reportKey = 'pod-uid-1/0';
    const at = new Date();
    const { rows } = await db.pool.query<{ id: string }>(
      `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, duration_ms, exit_code, report_key)
       VALUES ($1, $2, 'failed', $3, $3, 0, 137, $4) RETURNING id`,
      [job.id, job.name, at, reportKey],
    );
    const executionId = Number(rows[0]!.id);
    const hook = outboxHook({
      clock: systemClock,
      logger: createMemoryLogger(),
      emailEnabled: false,
      defaultTimeZone: 'UTC',
    });
    await withTransaction(db.pool, (tx) =>
      hook(tx, [
        {
          job,
          finalAttempt: true,
          awaitsClusterReason: true,
          execution: {
            id: executionId,
            jobId: job.id,
            jobName: job.name,
            status: 'failed',
            startedAt: at,
            finishedAt: at,
            durationMs: 0,
            exitCode: 137,
            stdout: '',
            stderr: '',
            attempt: 0,
            reason: { code: 'SIGKILL', message: 'the command was killed by SIGKILL (exit code 137)' },
            scheduledAt: null,
            trigger: null,
          },
        },
      ]),
    );
    const outbox = async () =>
      (
        await db.pool.query<{ subject: string; waits_ms: number; reason: string | null }>(
          `SELECT subject, extract(epoch FROM next_attempt_at - created_at) * 1000 AS waits_ms,
                  snapshot->'execution'->>'reason' AS reason
             FROM alert_outbox WHERE job_id = $1 ORDER BY subject`,
          [job.id],
        )
      ).rows.map((row) => ({ ...row, waits_ms: Number(row.waits_ms) }));

    expect(await outbox()).toEqual([
      { subject: `execution:${executionId}`, waits_ms: 60_000, reason: 'SIGKILL' },
      { subject: `suspended:${executionId}`, waits_ms: 60_000, reason: 'SIGKILL' },
    ]);
    const revised = await reviseWaitingAlerts(db.pool, job.id, reportKey, {
      code: 'OOMKilled',
      message: 'container "job" reached its memory limit of 64Mi',
    });
    expect(revised).toBe(2);
    expect(await outbox()).toEqual([
      { subject: `execution:${executionId}`, waits_ms: 0, reason: 'OOMKilled' },
      { subject: `suspended:${executionId}`, waits_ms: 0, reason: 'OOMKilled' },
    ]);
  });
});
