import { createAlerting } from '../../src/alerts/alerting';
import type { Database } from '../../src/store/database';
import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import { createMemoryLogger } from '../support/memoryLogger';
import { eventually, startTestService, type TestService } from '../support/service';
import { untilNoAlertInFlight } from './support/outbox';
import { Receiver } from './support/receiver';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * `overrun` on the local runtime: the service looks at its running attempts' rows and raises the
 * event once per run still going past `maxDurationSeconds`, however often it (or a process started
 * after it on the same database) looks again.
 */
describe('overrun alerts (local runtime)', () => {
  let db: Database;
  let receiver: Receiver;
  let attempts: ControlledAttempts;
  let clock: ManualClock;
  let service: TestService;

  beforeEach(async () => {
    db = await createTestDatabase();
    receiver = await Receiver.start();
    attempts = new ControlledAttempts();
    // The attempts' rows carry real start times: the service's clock starts from the real one.
    clock = new ManualClock(new Date());
    service = await startTestService({
      db,
      clock,
      local: { execute: attempts.run, sleep: async () => undefined },
      alerting: { pollIntervalMs: 20, overrunPollMs: 20 },
    });
  });
  afterEach(async () => {
    while (attempts.pending.length > 0) attempts.finishNext();
    await service.stop();
    await receiver.close();
    await db.close();
  });

  async function createJob(body: Obj): Promise<number> {
    const created = await service.request('POST', '/api/jobs', {
      schedule: '0 3 * * *',
      command: 'true',
      ...body,
    });
    await service.request('PUT', `/api/jobs/${created.body.id}/alerts`, {
      webhooks: [{ url: `${receiver.url}/hook`, events: ['overrun'] }],
      policy: { maxDurationSeconds: 300 },
    });
    return created.body.id;
  }

  /** A later process on the same database: the alerting room built afresh, nothing in memory. */
  const restartedAlerting = () =>
    createAlerting({
      pool: db.pool,
      clock,
      logger: createMemoryLogger(),
      smtp: null,
      webhookDenyCidrs: [],
      retentionDays: 90,
      defaultTimeZone: 'UTC',
    });

  it('raises it once per run while the run goes on, whoever looks again', async () => {
    const id = await createJob({ name: 'long' });
    await service.request('POST', `/api/jobs/${id}/run`);
    await attempts.waitForStarted(1);
    const [running] = (await service.request('GET', `/api/executions?jobId=${id}&status=running`)).body;

    clock.advance(299_000);
    expect(await service.alerting.overruns.raiseDueLocalRuns()).toBe(0);
    clock.advance(2_000);
    await eventually(async () => receiver.to('/hook').length === 1);
    await untilNoAlertInFlight(db.pool);
    const body = receiver.to('/hook')[0]!.json as Obj;
    expect(body).toEqual({
      event: 'overrun',
      job: { id, name: 'long', schedule: '0 3 * * *', command: 'true' },
      timestamp: expect.any(String),
      run: {
        startedAt: running.startedAt,
        runningForMs: expect.any(Number),
        maxDurationSeconds: 300,
        executionId: running.id,
        attempt: 0,
      },
    });
    expect(body.run.runningForMs).toBeGreaterThanOrEqual(300_000);

    clock.advance(600_000);
    expect(await service.alerting.overruns.raiseDueLocalRuns()).toBe(0);
    expect(await restartedAlerting().overruns.raiseDueLocalRuns()).toBe(0);
    const { rows } = await db.pool.query(`SELECT state FROM alert_outbox WHERE event = 'overrun'`);
    expect(rows).toEqual([{ state: 'delivered' }]);
    expect(receiver.to('/hook')).toHaveLength(1);

    // The next run is a run of its own.
    attempts.finishNext();
    await service.local.idle();
    await service.request('POST', `/api/jobs/${id}/run`);
    await attempts.waitForStarted(2);
    clock.advance(301_000);
    await eventually(async () => receiver.to('/hook').length === 2);
  });

  it('measures a run from its first attempt, through its retries', async () => {
    const id = await createJob({ name: 'retrying', retry: { maxAttempts: 2, baseDelay: 0 } });
    await service.request('POST', `/api/jobs/${id}/run`);
    await attempts.waitForStarted(1);
    const [first] = (await service.request('GET', `/api/executions?jobId=${id}&status=running`)).body;
    attempts.finishNext({ status: 'failed', exitCode: 1 });
    await attempts.waitForStarted(2);
    clock.advance(301_000);
    await eventually(async () => receiver.to('/hook').length === 1);
    expect((receiver.to('/hook')[0]!.json as Obj).run).toMatchObject({
      startedAt: first.startedAt,
      attempt: 1,
    });
    attempts.finishNext({ status: 'failed', exitCode: 1 });
    await attempts.waitForStarted(3);
    clock.advance(301_000);
    expect(await service.alerting.overruns.raiseDueLocalRuns()).toBe(0);
    expect(receiver.to('/hook')).toHaveLength(1);
  });
});
