import { parseJobsFile } from '../../src/config/jobsFile';
import { alertConfigOfShortcuts } from '../../src/kube/resources/alertShortcuts';
import { scheduledJobSpecSchema } from '../../src/kube/resources/scheduledJob';
import type { Database } from '../../src/store/database';
import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import { eventually, startTestService, type TestService } from '../support/service';
import { untilNoAlertInFlight } from './support/outbox';
import { Receiver } from './support/receiver';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The slot ledger's alert events, `missed` and `late`, through a real HTTP receiver. */
describe('missed and late alerts', () => {
  let receiver: Receiver;
  let db: Database;
  let clock: ManualClock;
  let attempts: ControlledAttempts;
  let service: TestService | null;

  const start = (retryDelaysMs: number[]) =>
    startTestService({
      db,
      clock,
      local: { execute: attempts.run },
      alerting: { pollIntervalMs: 50, retryDelaysMs },
    });

  beforeEach(async () => {
    receiver = await Receiver.start();
    db = await createTestDatabase();
    clock = new ManualClock('2026-06-01T10:00:30Z');
    attempts = new ControlledAttempts();
    service = null;
  });
  afterEach(async () => {
    while (attempts.pending.length > 0) attempts.finishNext();
    await service?.stop();
    await receiver.close();
    await db.close();
  });

  async function jobWithAlerts(body: Record<string, unknown>, alerts: Record<string, unknown>) {
    const job = (
      await service!.request('POST', '/api/jobs', { schedule: '*/5 * * * *', command: 'true', ...body })
    ).body;
    expect((await service!.request('PUT', `/api/jobs/${job.id}/alerts`, alerts)).status).toBe(200);
    return job as { id: number; name: string };
  }

  it('sends a missed slot’s alert once, across a restart, to the destinations that list the event', async () => {
    // The first delivery fails: the alert is still pending when the service stops.
    receiver.respondWith((_request, index) =>
      index === 0 ? { status: 503, body: 'busy' } : { status: 200 },
    );
    service = await start([60_000]);
    const job = await jobWithAlerts(
      { name: 'nightly' },
      {
        webhooks: [
          { url: `${receiver.url}/slots`, events: ['missed', 'late'] },
          { url: `${receiver.url}/failures`, events: ['failed', 'timeout'] },
        ],
        emails: [],
      },
    );
    await service.local.judgeSlots(clock.set('2026-06-01T10:06:00Z'));
    await eventually(async () => receiver.requests.length === 1);
    await untilNoAlertInFlight(db.pool);
    await service.stop();

    clock.set('2026-06-01T10:08:00Z');
    service = await start([50]);
    // The next judge passes judge nothing again and queue nothing again.
    await service.local.judgeSlots();
    await eventually(async () => receiver.requests.length === 2);
    await untilNoAlertInFlight(db.pool);
    await service.local.judgeSlots(clock.set('2026-06-01T10:08:30Z'));
    await sleep(300);
    expect(receiver.requests.map((request) => [request.path, request.answered])).toEqual([
      ['/slots', 503],
      ['/slots', 200],
    ]);
    const [, delivered] = receiver.requests;
    expect(delivered!.text).toBe(receiver.requests[0]!.text);
    expect(delivered!.json).toEqual({
      event: 'missed',
      job: { id: job.id, name: 'nightly', schedule: '*/5 * * * *', command: 'true' },
      timestamp: '2026-06-01T10:06:00.000Z',
      slot: {
        scheduledAt: '2026-06-01T10:05:00.000Z',
        outcome: 'missed',
        reason:
          "nothing started it: the service was not running, or no process was leading it, at that time (the job's catchUp policy is none, so it was not run later)",
      },
    });
    const { rows } = await db.pool.query('SELECT subject, event, state FROM alert_outbox ORDER BY id');
    expect(rows).toEqual([
      { subject: `slot:${job.id}:2026-06-01T10:05:00.000Z`, event: 'missed', state: 'delivered' },
    ]);
  });

  /** Records the run of `slot` that started at `startedAt`, as a pod's final report is recorded. */
  async function recordRun(jobId: number, slot: string, startedAt: string): Promise<number> {
    const started = new Date(startedAt);
    const recorded = await service!.recorder.recordReport(
      jobId,
      {
        status: 'success',
        startedAt: started,
        finishedAt: new Date(started.getTime() + 1000),
        exitCode: 0,
        stdout: '',
        stderr: '',
        attempt: 0,
        reportKey: `pod:${startedAt}:0`,
        slot: { scheduledAt: new Date(slot), trigger: 'schedule' },
      },
      true,
    );
    return recorded!.id;
  }

  it('sends a late slot’s alert once, across a restart', async () => {
    receiver.respondWith((_request, index) =>
      index === 0 ? { status: 503, body: 'busy' } : { status: 200 },
    );
    service = await start([60_000]);
    const job = await jobWithAlerts(
      { name: 'slow-start' },
      {
        webhooks: [{ url: `${receiver.url}/late`, events: ['late'] }],
        emails: [],
      },
    );
    const run = await recordRun(job.id, '2026-06-01T10:05:00Z', '2026-06-01T10:06:30Z');
    await service.local.judgeSlots(clock.set('2026-06-01T10:07:00Z'));
    await eventually(async () => receiver.requests.length === 1);
    await untilNoAlertInFlight(db.pool);
    await service.stop();

    clock.set('2026-06-01T10:08:00Z');
    service = await start([50]);
    await service.local.judgeSlots();
    await eventually(async () => receiver.requests.length === 2);
    await untilNoAlertInFlight(db.pool);
    await service.local.judgeSlots(clock.set('2026-06-01T10:08:30Z'));
    await sleep(300);
    expect(receiver.requests.map((request) => [request.path, request.answered])).toEqual([
      ['/late', 503],
      ['/late', 200],
    ]);
    expect(receiver.requests[1]!.json.slot).toEqual({
      scheduledAt: '2026-06-01T10:05:00.000Z',
      outcome: 'late',
      reason: 'started 1 min 30 s after its time, past its grace of 1 min',
      startedAt: '2026-06-01T10:06:30.000Z',
      delayMs: 90_000,
      executionIds: [run],
    });
    const { rows } = await db.pool.query('SELECT subject, event, state FROM alert_outbox ORDER BY id');
    expect(rows).toEqual([
      { subject: `slot:${job.id}:2026-06-01T10:05:00.000Z`, event: 'late', state: 'delivered' },
    ]);
  });

  it('sends nothing more when a slot whose missed alert went out turns late', async () => {
    service = await start([50]);
    const job = await jobWithAlerts(
      { name: 'very-late' },
      {
        webhooks: [{ url: `${receiver.url}/slots`, events: ['missed', 'late'] }],
        emails: [],
      },
    );
    await service.local.judgeSlots(clock.set('2026-06-01T10:06:00Z'));
    await eventually(async () => receiver.requests.length === 1);
    await untilNoAlertInFlight(db.pool);
    const run = await recordRun(job.id, '2026-06-01T10:05:00Z', '2026-06-01T10:09:00Z');
    const [slot] = (await service.request('GET', `/api/jobs/${job.id}/slots`)).body;
    expect(slot).toMatchObject({ outcome: 'late', executionIds: [run] });
    await service.local.judgeSlots(clock.set('2026-06-01T10:09:30Z'));
    await sleep(300);
    expect(receiver.requests.map((request) => request.json.event)).toEqual(['missed']);
    const { rows } = await db.pool.query('SELECT subject, event FROM alert_outbox ORDER BY id');
    expect(rows).toEqual([{ subject: `slot:${job.id}:2026-06-01T10:05:00.000Z`, event: 'missed' }]);
  });

  it('sends a late slot’s alert, with its delay; a configuration of the spec’s events hears nothing', async () => {
    service = await start([50]);
    const job = await jobWithAlerts(
      { name: 'caught-up', catchUp: { policy: 'latest' } },
      {
        webhooks: [
          { url: `${receiver.url}/late`, events: ['late'] },
          { url: `${receiver.url}/spec`, events: ['success', 'failed', 'timeout'] },
        ],
        emails: [],
      },
    );
    await service.stop();
    clock.set('2026-06-01T10:12:00Z');
    service = await start([50]);
    await attempts.waitForStarted(1);
    await service.local.judgeSlots();
    await eventually(async () => receiver.requests.length === 1);
    expect(receiver.requests[0]!.path).toBe('/late');
    expect(receiver.requests[0]!.json).toMatchObject({
      event: 'late',
      job: { name: 'caught-up' },
      slot: {
        scheduledAt: '2026-06-01T10:10:00.000Z',
        outcome: 'late',
        startedAt: '2026-06-01T10:12:00.000Z',
        delayMs: 120_000,
        executionIds: [expect.any(Number)],
      },
    });
    // The missed 10:05 went to nobody: no destination lists `missed`.
    attempts.finishNext();
    await service.local.idle();
    await eventually(async () => receiver.requests.length >= 2);
    await sleep(200); // and nothing more
    expect(receiver.requests.map((request) => request.path)).toEqual(['/late', '/spec']);
    expect(receiver.requests[1]!.json.event).toBe('success');
    void job;
  });

  it('mutes a missed slot inside a maintenance window of the job’s alert policy, and keeps it as history', async () => {
    service = await start([50]);
    const job = await jobWithAlerts(
      { name: 'maintained' },
      {
        webhooks: [{ url: `${receiver.url}/slots`, events: ['missed'] }],
        emails: [],
        policy: { maintenance: [{ schedule: '0 10 * * *', durationSeconds: 420 }] },
      },
    );
    await service.local.judgeSlots(clock.set('2026-06-01T10:11:00Z'));
    await eventually(async () => receiver.requests.length === 1);
    await sleep(200); // and nothing more
    await untilNoAlertInFlight(db.pool);
    // 10:05 is within 10:00 + 7 min; 10:10 is not.
    const history = (await service.request('GET', `/api/jobs/${job.id}/alerts/history`)).body;
    expect(history.map((entry: { event: string; state: string }) => [entry.event, entry.state])).toEqual([
      ['missed', 'delivered'],
      ['missed', 'muted'],
    ]);
    expect(receiver.requests.map((request) => request.json.slot.scheduledAt)).toEqual([
      '2026-06-01T10:10:00.000Z',
    ]);
  });

  it('has shortcuts: on_missed and on_missed_email in a jobs file, onMissed and onMissedEmail on a ScheduledJob', async () => {
    const [declared] = parseJobsFile(
      [
        'jobs:',
        '  - name: watched',
        '    schedule: "0 3 * * *"',
        '    command: backup',
        `    on_missed: ${'https://hooks.example.com/missed'}`,
        '    on_missed_email: ops@example.com',
      ].join('\n'),
      'jobs.yaml',
    );
    service = await startTestService({ db, clock, declaredJobs: [declared!] });
    const [job] = (await service.request('GET', '/api/jobs')).body;
    expect((await service.request('GET', `/api/jobs/${job.id}/alerts`)).body).toEqual({
      webhooks: [{ url: 'https://hooks.example.com/missed', events: ['missed'] }],
      emails: [{ to: ['ops@example.com'], events: ['missed'] }],
    });
    const spec = scheduledJobSpecSchema.parse({
      schedule: '0 3 * * *',
      command: 'backup',
      onMissed: 'https://hooks.example.com/missed',
      onMissedEmail: 'ops@example.com, oncall@example.com',
    });
    expect(alertConfigOfShortcuts(spec)).toEqual({
      webhooks: [{ url: 'https://hooks.example.com/missed', events: ['missed'] }],
      emails: [{ to: ['ops@example.com', 'oncall@example.com'], events: ['missed'] }],
    });
  });
});
