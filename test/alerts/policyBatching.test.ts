import { outboxHook } from '../../src/alerts/outboxHook';
import type { Execution } from '../../src/domain/execution';
import type { RecordedExecution } from '../../src/store/transactionHooks';
import { type Database, type Queryable, withTransaction } from '../../src/store/database';
import { saveAlertConfig } from '../../src/store/alerts';
import { insertJob } from '../../src/store/jobs';
import { systemClock } from '../../src/domain/clock';
import { createTestDatabase } from '../support/database';
import { createMemoryLogger } from '../support/memoryLogger';

/**
 * The recording transaction stays cheap: however many runs it records, the hook sends the same few
 * statements (group commit), and a job without a policy costs what it cost before policies.
 */
describe('the alert hook’s statements per recording transaction', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  async function recordTogether(
    count: number,
    policy: boolean,
    status: Execution['status'],
  ): Promise<string[]> {
    const recorded: RecordedExecution[] = [];
    for (let i = 0; i < count; i++) {
      const job = await insertJob(db.pool, {
        name: `batch-${policy}-${status}-${count}-${i}`,
        schedule: '@daily',
        command: 'true',
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
          webhooks: [{ url: 'https://hooks.example.com/x', events: ['failed', 'success', 'suspended'] }],
          emails: [],
          ...(policy ? { policy: { afterConsecutiveFailures: 2, suspendAfterFailures: 1 } } : {}),
        },
        'api',
      );
      const at = new Date();
      recorded.push({
        job,
        finalAttempt: true,
        execution: {
          id: 1_000_000 + recorded.length + Math.floor(Math.random() * 1e6),
          jobId: job.id,
          jobName: job.name,
          status,
          startedAt: at,
          finishedAt: at,
          durationMs: 0,
          exitCode: status === 'success' ? 0 : 1,
          stdout: '',
          stderr: '',
          attempt: 0,
          reason: null,
          scheduledAt: null,
          trigger: null,
        },
      });
    }
    const hook = outboxHook({
      clock: systemClock,
      logger: createMemoryLogger(),
      emailEnabled: false,
      defaultTimeZone: 'UTC',
    });
    const statements: string[] = [];
    await withTransaction(db.pool, async (tx) => {
      const counting: Queryable = {
        query: (text, values) => {
          const sql = typeof text === 'string' ? text : text.text;
          statements.push(sql.trim().split(/\s+/).slice(0, 2).join(' '));
          return tx.query(text, values);
        },
      };
      await hook(counting, recorded);
    });
    return statements;
  }

  it('sends two statements for any number of runs of jobs without a policy', async () => {
    expect(await recordTogether(1, false, 'failed')).toEqual(['SELECT job_id,', 'INSERT INTO']);
    expect(await recordTogether(50, false, 'failed')).toEqual(['SELECT job_id,', 'INSERT INTO']);
  });

  it('sends a fixed few for any number of runs of jobs with a policy', async () => {
    const one = await recordTogether(1, true, 'success');
    const fifty = await recordTogether(50, true, 'success');
    expect(fifty).toEqual(one);
    expect(fifty).toEqual(['SELECT job_id,', 'INSERT INTO', 'UPDATE alert_policy_state', 'INSERT INTO']);
    // Failures that suspend add one statement for all the suspensions.
    const suspending = await recordTogether(50, true, 'failed');
    expect(suspending).toEqual([
      'SELECT job_id,',
      'INSERT INTO',
      'UPDATE alert_policy_state',
      // The suspensions and their slot ledger holds (migration 017), one statement.
      'WITH suspended',
      'INSERT INTO',
    ]);
  });
});
