import type { Database } from '../../src/store/database';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import { eventually, startTestService, type TestService } from '../support/service';
import { Receiver } from './support/receiver';
import { type ScriptedOutcome, ScriptedRuns } from './support/scriptedRuns';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FAIL: ScriptedOutcome = { status: 'failed' };
const PASS: ScriptedOutcome = { status: 'success' };

/**
 * The alert policy on the local runtime, through the API and a real webhook receiver: runs cross
 * each threshold one at a time, and after each the outbox is settled (nothing pending) before the
 * receiver is looked at, so "nothing sent" is a fact and not a race.
 */
describe('alert policy (local runtime)', () => {
  let db: Database;
  let receiver: Receiver;
  let runs: ScriptedRuns;
  let clock: ManualClock;
  let service: TestService;

  const start = () =>
    startTestService({ db, clock, local: { execute: runs.run }, alerting: { pollIntervalMs: 20 } });

  beforeEach(async () => {
    db = await createTestDatabase();
    receiver = await Receiver.start();
    runs = new ScriptedRuns();
    clock = new ManualClock('2026-03-10T12:00:00Z');
    service = await start();
  });
  afterEach(async () => {
    await service.stop();
    await receiver.close();
    await db.close();
  });

  async function createJob(name: string, alerts: Obj): Promise<number> {
    const created = await service.request('POST', '/api/jobs', {
      name,
      schedule: '0 3 * * *',
      command: 'true',
    });
    expect(created.status).toBe(201);
    const put = await service.request('PUT', `/api/jobs/${created.body.id}/alerts`, alerts);
    expect(put.status).toBe(200);
    return created.body.id;
  }

  /** Runs the job once with the scripted outcome, and waits until its alerts are settled. */
  async function runOnce(jobId: number, name: string, outcome: ScriptedOutcome): Promise<void> {
    runs.next(name, outcome);
    const run = await service.request('POST', `/api/jobs/${jobId}/run`);
    expect(run.status).toBe(200);
    await service.local.idle();
    await settled();
  }

  async function settled(): Promise<void> {
    await eventually(async () => {
      const { rows } = await db.pool.query(
        `SELECT count(*)::int AS n FROM alert_outbox WHERE state = 'pending'`,
      );
      return rows[0].n === 0;
    });
  }

  const received = (path = '/hook') => receiver.to(path).map((request) => request.json as Obj);
  const history = async (jobId: number) =>
    (await service.request('GET', `/api/jobs/${jobId}/alerts/history`)).body as Obj[];

  it('stays silent for N-1 failed runs, alerts from the Nth, recovers once', async () => {
    const id = await createJob('flaky', {
      webhooks: [{ url: `${receiver.url}/hook`, events: ['failed', 'timeout', 'recovered'] }],
      policy: { afterConsecutiveFailures: 3, recovery: true },
    });
    await runOnce(id, 'flaky', FAIL);
    await runOnce(id, 'flaky', { status: 'timeout' });
    expect(received()).toEqual([]);
    const held = await history(id);
    expect(held.map((entry) => [entry.event, entry.state])).toEqual([
      ['timeout', 'suppressed'],
      ['failed', 'suppressed'],
    ]);
    expect(held[0]!.note).toBe('failed run 2 of 3 in a row: alerts from the 3rd (afterConsecutiveFailures)');

    await runOnce(id, 'flaky', FAIL);
    expect(received().map((body) => [body.event, body.consecutiveFailures])).toEqual([['failed', 3]]);
    // Without repeatEverySeconds every later failure alerts, as without a policy.
    await runOnce(id, 'flaky', FAIL);
    expect(received()).toHaveLength(2);

    await runOnce(id, 'flaky', PASS);
    const recovered = received()[2];
    expect(recovered).toMatchObject({
      event: 'recovered',
      job: { id, name: 'flaky' },
      execution: { status: 'success', attempt: 0 },
      consecutiveFailures: 4,
      failingSince: expect.any(String),
    });
    await runOnce(id, 'flaky', PASS);
    await runOnce(id, 'flaky', FAIL);
    expect(received()).toHaveLength(3);
    expect((await history(id))[0]).toMatchObject({ event: 'failed', state: 'suppressed' });
  });

  it('counts a run by its final attempt: retries are not failures of their own', async () => {
    const created = await service.request('POST', '/api/jobs', {
      name: 'retried',
      schedule: '0 3 * * *',
      command: 'true',
      retry: { maxAttempts: 2, baseDelay: 0 },
    });
    const id = created.body.id;
    await service.request('PUT', `/api/jobs/${id}/alerts`, {
      webhooks: [{ url: `${receiver.url}/hook`, events: ['failed'] }],
      policy: { afterConsecutiveFailures: 2 },
    });
    runs.next('retried', FAIL, FAIL, FAIL);
    await service.request('POST', `/api/jobs/${id}/run`);
    await service.local.idle();
    await settled();
    expect(received()).toEqual([]);
    runs.next('retried', FAIL, FAIL, FAIL);
    await service.request('POST', `/api/jobs/${id}/run`);
    await service.local.idle();
    await settled();
    expect(received().map((body) => [body.event, body.execution.attempt, body.consecutiveFailures])).toEqual([
      ['failed', 2, 2],
    ]);
  });

  it('reminds at most once per interval while the job keeps failing, and forgets nothing across a restart', async () => {
    const id = await createJob('stuck', {
      webhooks: [{ url: `${receiver.url}/hook`, events: ['failed'] }],
      policy: { repeatEverySeconds: 600 },
    });
    await runOnce(id, 'stuck', FAIL);
    expect(received().map((body) => body.reminder)).toEqual([undefined]);

    clock.advance(5 * 60_000);
    await runOnce(id, 'stuck', FAIL);
    expect(received()).toHaveLength(1);
    expect((await history(id))[0]!.note).toMatch(
      /^still failing \(2 in a row\): reminded at most every 600 s, next from 2026-03-10T12:10:00\.000Z/,
    );

    clock.advance(5 * 60_000);
    await runOnce(id, 'stuck', FAIL);
    expect(received().map((body) => [body.reminder, body.consecutiveFailures])).toEqual([
      [undefined, 1],
      [true, 3],
    ]);

    await service.stop();
    service = await start();
    clock.advance(4 * 60_000);
    await runOnce(id, 'stuck', FAIL);
    expect(received()).toHaveLength(2);
    clock.advance(6 * 60_000);
    await runOnce(id, 'stuck', FAIL);
    expect(received().map((body) => body.reminder)).toEqual([undefined, true, true]);
    expect((await history(id)).filter((entry) => entry.reminder)).toHaveLength(2);
  });

  it('says a success finished suspiciously fast', async () => {
    const id = await createJob('quick', {
      webhooks: [{ url: `${receiver.url}/hook`, events: ['tooFast'] }],
      policy: { minDurationSeconds: 60 },
    });
    await runOnce(id, 'quick', { status: 'success', durationMs: 90_000 });
    await runOnce(id, 'quick', { status: 'failed', durationMs: 2_000 });
    expect(received()).toEqual([]);
    await runOnce(id, 'quick', { status: 'success', durationMs: 2_000 });
    expect(received()).toEqual([
      expect.objectContaining({
        event: 'tooFast',
        minDurationSeconds: 60,
        execution: expect.objectContaining({ status: 'success', durationMs: 2000 }),
      }),
    ]);
  });

  it('mutes alerts during a maintenance window across midnight on a DST night, and shows them', async () => {
    // 23:30 to 01:30 in Berlin on the night the clocks spring forward (22:30 to 00:30 UTC).
    const id = await createJob('nightly', {
      webhooks: [{ url: `${receiver.url}/hook`, events: ['failed', 'success'] }],
      policy: {
        maintenance: [{ schedule: '30 23 * * *', durationSeconds: 7200, timezone: 'Europe/Berlin' }],
      },
    });
    clock.set('2026-03-28T23:15:00Z');
    await runOnce(id, 'nightly', FAIL);
    clock.set('2026-03-29T00:29:00Z');
    await runOnce(id, 'nightly', PASS);
    expect(received()).toEqual([]);
    const muted = await history(id);
    expect(muted.map((entry) => [entry.event, entry.state])).toEqual([
      ['success', 'muted'],
      ['failed', 'muted'],
    ]);
    expect(muted[0]!.note).toBe(
      'muted: maintenance window "30 23 * * *" (Europe/Berlin), 2026-03-28T22:30:00.000Z to 2026-03-29T00:30:00.000Z',
    );
    // The runs were recorded and counted all the same.
    expect((await service.request('GET', `/api/executions?jobId=${id}`)).body).toHaveLength(2);

    clock.set('2026-03-29T00:30:00Z');
    await runOnce(id, 'nightly', FAIL);
    expect(received().map((body) => body.event)).toEqual(['failed']);
  });

  it('suspends the job after N failed runs until a person switches it on or runs it', async () => {
    const id = await createJob('breaking', {
      webhooks: [{ url: `${receiver.url}/hook`, events: ['suspended'] }],
      policy: { suspendAfterFailures: 2 },
    });
    const job = async () => (await service.request('GET', `/api/jobs/${id}`)).body as Obj;
    expect(service.local.nextFireTimes().has(id)).toBe(true);
    await runOnce(id, 'breaking', FAIL);
    expect((await job()).enabled).toBe(true);
    await runOnce(id, 'breaking', FAIL);

    const reason =
      'suspended after 2 failed runs in a row (suspendAfterFailures: 2); switch the job on or run it to resume';
    expect(received()).toEqual([
      expect.objectContaining({ event: 'suspended', suspendedReason: reason, consecutiveFailures: 2 }),
    ]);
    expect(await job()).toMatchObject({ enabled: false, suspendedReason: reason, nextRun: null });
    await eventually(async () => !service.local.nextFireTimes().has(id));

    // Switched back on: it fires again, and its failures count from zero.
    const toggled = await service.request('PATCH', `/api/jobs/${id}/toggle`, { enabled: true });
    expect(toggled.body).toMatchObject({ enabled: true, suspendedReason: null, suspendedAt: null });
    expect(service.local.nextFireTimes().has(id)).toBe(true);
    await runOnce(id, 'breaking', FAIL);
    expect((await job()).enabled).toBe(true);
    await runOnce(id, 'breaking', FAIL);
    expect(received()).toHaveLength(2);
    expect((await job()).enabled).toBe(false);

    // Run by hand: it is resumed, and that run counts as the first failure of a new streak.
    await runOnce(id, 'breaking', FAIL);
    expect(await job()).toMatchObject({ enabled: true, suspendedReason: null });
    expect(service.local.nextFireTimes().has(id)).toBe(true);
    expect(received()).toHaveLength(2);
  });

  it('sends nothing new for a configuration without a policy', async () => {
    const id = await createJob('plain', {
      webhooks: [{ url: `${receiver.url}/hook`, events: ['failed', 'success', 'recovered', 'suspended'] }],
    });
    expect((await service.request('GET', `/api/jobs/${id}/alerts`)).body).toEqual({
      webhooks: [{ url: `${receiver.url}/hook`, events: ['success', 'failed', 'recovered', 'suspended'] }],
      emails: [],
    });
    for (const outcome of [FAIL, FAIL, FAIL, PASS]) await runOnce(id, 'plain', outcome);
    expect(received().map((body) => body.event)).toEqual(['failed', 'failed', 'failed', 'success']);
    expect(Object.keys(received()[0]!)).toEqual(['event', 'job', 'execution', 'timestamp']);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM alert_policy_state');
    expect(rows[0].n).toBe(0);
  });

  it('lets the controller write a policy only when it changed, whatever order its keys come back in', async () => {
    const id = await createJob('synced', {});
    const config = {
      webhooks: [{ url: `${receiver.url}/hook`, events: ['failed' as const, 'recovered' as const] }],
      emails: [],
      // jsonb gives keys back shortest first: recovery before afterConsecutiveFailures.
      policy: {
        afterConsecutiveFailures: 2,
        recovery: true,
        maintenance: [{ schedule: '0 1 * * 6', durationSeconds: 7200 }],
      },
    };
    expect(await service.alerting.api.sync(id, config)).toBe(true);
    const updatedAt = async () =>
      (await db.pool.query('SELECT updated_at FROM alert_configs WHERE job_id = $1', [id])).rows[0]
        .updated_at;
    const written = await updatedAt();
    expect(await service.alerting.api.sync(id, config)).toBe(false);
    expect(await updatedAt()).toEqual(written);
    expect(
      await service.alerting.api.sync(id, { ...config, policy: { ...config.policy, recovery: false } }),
    ).toBe(true);
  });
});
