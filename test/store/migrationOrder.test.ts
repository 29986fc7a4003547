import { createLogger } from '../../src/logging/logger';
import { claimDueAlerts, enqueueAlerts, findAlertConfigs } from '../../src/store/alerts';
import type { Database, Queryable } from '../../src/store/database';
import { migrate } from '../../src/store/migrate';
import { MIGRATIONS } from '../../src/store/migrations';
import { createTestDatabase } from '../support/database';

/**
 * Migration 014 (the alert policy) was numbered before 015 and 016 (signed webhooks, failure
 * reasons) but written beside them: a database that followed main has 015 and 016 and gets 014
 * after them (the runner applies the versions it lacks, in list order). Both roads must end in the
 * same schema, and the rows written in between must come through.
 */
const ALERT_POLICY = 14;
/** The last migration main had when 014 arrived; those after it were written after 014 and need it. */
const LAST_BEFORE_ALERT_POLICY_ARRIVED = 16;
const ARRIVED_AFTER = MIGRATIONS.map((migration) => migration.version).filter(
  (version) => version > LAST_BEFORE_ALERT_POLICY_ARRIVED,
);

/** Everything of the public schema a migration can make, without the order columns were added in. */
async function schemaOf(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ item: string }>(`
    SELECT format('column %s.%s %s %s default %s', table_name, column_name, data_type, is_nullable,
                  coalesce(column_default, '-')) AS item
      FROM information_schema.columns WHERE table_schema = 'public'
    UNION ALL
    SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace
    UNION ALL
    SELECT format('index %s', indexdef) FROM pg_indexes WHERE schemaname = 'public'
    UNION ALL
    SELECT format('trigger %s', pg_get_triggerdef(t.oid))
      FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
     WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal
    UNION ALL
    SELECT format('function %s', pg_get_functiondef(p.oid))
      FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
    ORDER BY 1`);
  return rows.map((row) => row.item);
}

describe('migration 014 after 015 and 016', () => {
  let inOrder: Database;
  let late: Database;
  beforeAll(async () => {
    inOrder = await createTestDatabase();
    late = await createTestDatabase(
      MIGRATIONS.filter(
        (migration) =>
          migration.version !== ALERT_POLICY && migration.version <= LAST_BEFORE_ALERT_POLICY_ARRIVED,
      ),
    );
  }, 120_000);
  afterAll(async () => {
    await Promise.all([inOrder?.close(), late?.close()]);
  });

  it('keeps what 015 and 016 wrote, and ends in the schema of a database migrated in order', async () => {
    // What a service of main wrote before the alert policy arrived: a signed Teams alert waiting
    // to go, about a run with a reason.
    const { rows: jobs } = await late.pool.query<{ id: number }>(
      `INSERT INTO jobs (name, schedule, command) VALUES ('backup', '0 2 * * *', 'pg_dump') RETURNING id`,
    );
    const jobId = jobs[0]!.id;
    await late.pool.query(
      `INSERT INTO alert_configs (job_id, webhooks, webhook_secrets) VALUES ($1, $2, $3)`,
      [
        jobId,
        JSON.stringify([{ url: 'https://hooks.example.com/a', events: ['failed'], format: 'teams' }]),
        JSON.stringify(['whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0']),
      ],
    );
    const { rows: executions } = await late.pool.query<{ id: string }>(
      `INSERT INTO executions (job_id, job_name, status, started_at, finished_at, exit_code, reason, reason_message)
       VALUES ($1, 'backup', 'failed', now(), now(), 137, 'OOMKilled', 'limit 64Mi') RETURNING id`,
      [jobId],
    );
    const executionId = Number(executions[0]!.id);
    const queuedAt = new Date(Date.now() - 60_000);
    await late.pool.query(
      `INSERT INTO alert_outbox (job_id, execution_id, event, channel, destination, snapshot, format,
         signing_secret, created_at, next_attempt_at)
       VALUES ($1, $2, 'failed', 'webhook', 'https://hooks.example.com/a', '{}', 'teams', 'whsec_kept', $3, $3)`,
      [jobId, executionId, queuedAt],
    );

    expect(await migrate(late.pool, createLogger({ level: 'error' }))).toEqual([
      ALERT_POLICY,
      ...ARRIVED_AFTER,
    ]);
    expect(await schemaOf(late.pool)).toEqual(await schemaOf(inOrder.pool));

    // The configuration reads with its policy column, the secret where it was.
    expect((await findAlertConfigs(late.pool, [jobId])).get(jobId)?.webhooks).toEqual([
      {
        url: 'https://hooks.example.com/a',
        events: ['failed'],
        format: 'teams',
        secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0',
      },
    ]);
    // The waiting alert took its subject: the same alert queued again is the same row.
    const again = await enqueueAlerts(late.pool, [
      {
        jobId,
        executionId,
        subject: `execution:${executionId}`,
        event: 'failed',
        channel: 'webhook',
        destination: 'https://hooks.example.com/a',
        snapshot: {},
        createdAt: new Date(),
        state: 'pending',
        note: null,
      },
    ]);
    expect(again).toBe(0);
    const [claimed, ...more] = await claimDueAlerts(late.pool, {
      now: new Date(),
      leaseUntil: new Date(Date.now() + 60_000),
      workerId: 'test',
      limit: 10,
    });
    expect(more).toEqual([]);
    expect(claimed).toMatchObject({
      executionId,
      event: 'failed',
      format: 'teams',
      signingSecret: 'whsec_kept',
    });
  }, 60_000);
});
