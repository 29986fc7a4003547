import { ControlledAttempts } from '../support/attempts';
import { ManualClock } from '../support/clock';
import { eventually, startTestService, type TestService } from '../support/service';
import { untilNoAlertInFlight } from './support/outbox';
import { Receiver } from './support/receiver';
import { generateCertificate, TestSmtpServer } from './support/smtp';
import { verifyStandardWebhook } from './support/standardWebhooks';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const USER = 'crondeck-alerts';
const PASSWORD = 'correct horse battery staple';
const ALL_EVENTS = ['success', 'failed', 'timeout', 'recovered', 'overrun', 'tooFast', 'suspended'];
const ROUTING_KEY = 'R0123456789abcdefABCDEF012345678';
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const SIGKILL = { code: 'SIGKILL', message: 'the command was killed by SIGKILL (exit code 137)' };

/**
 * Every event of the alert policy as its receivers get it, over real HTTP and real SMTP: the
 * generic payload (signed too), Slack blocks, a Discord embed, a Teams card, PagerDuty's Events API
 * and an e-mail for a failure, its reminder (a run killed by a signal: its reason goes along), the
 * suspension it leads to, an overrun of the run that resumes the job, and that run's recovery and
 * too-fast finish.
 */
describe('the alert policy’s events in every format', () => {
  let receiver: Receiver;
  let smtp: TestSmtpServer;
  let service: TestService;
  let attempts: ControlledAttempts;
  let clock: ManualClock;
  let jobId: number;

  beforeAll(async () => {
    const certificate = generateCertificate();
    receiver = await Receiver.start();
    smtp = await TestSmtpServer.start({ certificate, secure: true, user: USER, password: PASSWORD });
    attempts = new ControlledAttempts();
    clock = new ManualClock(new Date());
    service = await startTestService({
      clock,
      env: {
        SERVICE_SMTP_HOST: '127.0.0.1',
        SERVICE_SMTP_PORT: String(smtp.port),
        SERVICE_SMTP_SECURE: 'true',
        SERVICE_SMTP_FROM: 'crondeck@example.com',
        SERVICE_SMTP_USERNAME: USER,
        SERVICE_SMTP_PASSWORD: PASSWORD,
      },
      local: { execute: attempts.run },
      alerting: {
        pollIntervalMs: 20,
        overrunPollMs: 20,
        smtpTls: { ca: certificate.cert },
        resolveWebhookTarget: (url) =>
          url.hostname === 'hooks.slack.com' ? new URL(url.pathname, receiver.url) : url,
      },
    });
    const created = await service.request('POST', '/api/jobs', {
      name: 'report',
      schedule: '0 3 * * *',
      command: 'make report',
    });
    jobId = created.body.id;
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, {
      webhooks: [
        { url: `${receiver.url}/generic`, events: ALL_EVENTS },
        { url: 'https://hooks.slack.com/services/T000/B000/secret', events: ALL_EVENTS },
        { url: `${receiver.url}/api/webhooks/123/token`, events: ALL_EVENTS },
        { url: `${receiver.url}/teams`, events: ALL_EVENTS, format: 'teams' },
        // Not `success`: only the policy's `recovered` resolves the incident.
        {
          url: `${receiver.url}/pd/v2/enqueue?routing_key=${ROUTING_KEY}`,
          events: ALL_EVENTS.filter((event) => event !== 'success'),
          format: 'pagerduty',
        },
        { url: `${receiver.url}/signed`, events: ALL_EVENTS, secret: SECRET },
      ],
      emails: [{ to: ['ops@example.com'], events: ALL_EVENTS }],
      policy: {
        recovery: true,
        repeatEverySeconds: 60,
        suspendAfterFailures: 2,
        maxDurationSeconds: 300,
        minDurationSeconds: 30,
      },
    });
    expect(put.status).toBe(200);

    const run = async () =>
      expect((await service.request('POST', `/api/jobs/${jobId}/run`)).status).toBe(200);
    // The clock moves only while nothing is being sent: a claim's lease is measured on it.
    const settled = () =>
      eventually(async () => {
        const { rows } = await service.db.pool.query(
          `SELECT count(*)::int AS n FROM alert_outbox WHERE state = 'pending'`,
        );
        return rows[0].n === 0;
      });
    await run();
    await attempts.waitForStarted(1);
    attempts.finishNext({ status: 'failed', exitCode: 2, stderr: 'disk full\n' });
    await service.local.idle();
    await settled();
    clock.advance(61_000);
    await run();
    await attempts.waitForStarted(2);
    attempts.finishNext({ status: 'failed', exitCode: 137, stderr: 'disk still full\n', reason: SIGKILL });
    await service.local.idle();
    await settled();
    // Suspended now; running it by hand resumes it, and this run goes on too long.
    await run();
    await attempts.waitForStarted(3);
    clock.advance(301_000);
    await eventually(async () => receiver.to('/generic').length === 4);
    await settled();
    const finishedAt = new Date();
    attempts.finishNext({
      stdout: 'nothing to do\n',
      startedAt: new Date(finishedAt.getTime() - 5000),
      finishedAt,
    });
    await service.local.idle();
    await settled();
    expect(receiver.requests).toHaveLength(6 * 7 - 1);
    expect(smtp.received).toHaveLength(7);
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await smtp?.close();
  });

  const byEvent = (bodies: Obj[], key: (body: Obj) => string) =>
    Object.fromEntries(bodies.map((body) => [key(body), body]));

  it('extends the generic payload, never changing the spec’s fields', () => {
    const bodies = receiver.to('/generic').map((request) => request.json as Obj);
    expect(bodies.map((body) => body.event).sort()).toEqual(
      ['failed', 'failed', 'suspended', 'overrun', 'success', 'recovered', 'tooFast'].sort(),
    );
    const job = { id: jobId, name: 'report', schedule: '0 3 * * *', command: 'make report' };
    const [first, reminder] = bodies.filter((body) => body.event === 'failed');
    expect(Object.keys(first!)).toEqual(['event', 'job', 'execution', 'timestamp', 'consecutiveFailures']);
    expect(first).toMatchObject({
      job,
      consecutiveFailures: 1,
      execution: { status: 'failed', exitCode: 2 },
    });
    expect(reminder).toMatchObject({ reminder: true, consecutiveFailures: 2 });
    const one = (event: string) => bodies.find((body) => body.event === event)!;
    expect(one('suspended')).toMatchObject({
      job,
      execution: { status: 'failed', stderrTail: 'disk still full\n' },
      consecutiveFailures: 2,
      suspendedReason: expect.stringMatching(/^suspended after 2 failed runs in a row/),
    });
    expect(one('overrun')).toMatchObject({ job, run: { maxDurationSeconds: 300, attempt: 0 } });
    expect(one('overrun').execution).toBeUndefined();
    expect(one('recovered')).toMatchObject({
      job,
      execution: { status: 'success', durationMs: 5000 },
      consecutiveFailures: 2,
      failingSince: expect.any(String),
    });
    expect(one('tooFast')).toMatchObject({ job, execution: { durationMs: 5000 }, minDurationSeconds: 30 });
  });

  it('shows each event in Slack with its own headline and colour', () => {
    const messages = receiver.to('/services/T000/B000/secret').map((request) => request.json as Obj);
    const texts = messages.map((message) => message.text as string);
    expect(texts.filter((text) => !text.startsWith('⏱')).sort()).toEqual(
      [
        '✗ report failed',
        '✗ report still failing',
        '⏸ report suspended',
        '✓ report succeeded',
        '↻ report recovered',
        '⚡ report finished suspiciously fast',
      ].sort(),
    );
    expect(texts.filter((text) => text.startsWith('⏱'))).toEqual([
      expect.stringMatching(/^⏱ report still running after \d+ min \d+ s$/),
    ]);
    const message = byEvent(
      messages,
      (m) => m.text.split(' ')[0] + (m.text.includes('still') ? 'again' : ''),
    );
    expect(message['↻']!.attachments[0].color).toBe('#2eb886');
    expect(message['⏸']!.attachments[0].color).toBe('#e01e5a');
    expect(message['⚡']!.attachments[0].color).toBe('#ecb22e');
    const fields = (m: Obj) => m.attachments[0].blocks[1].fields.map((f: Obj) => f.text);
    expect(fields(message['⏱again']!)).toEqual([
      '*Schedule*\n`0 3 * * *`',
      expect.stringMatching(/^\*Running for\*\n\d+ min \d+ s$/),
      '*Limit*\n5 min 0 s',
      '*Attempt*\n0',
      expect.stringMatching(/^\*Running since\*\n\d{4}-/),
    ]);
    expect(fields(message['⚡']!)).toContain('*Expected at least*\n30.0 s');
    expect(fields(message['✗again']!)).toContain('*Reminder*\nthe job is still failing');
    // A too-fast run shows what it printed; a recovery shows no output block, as a success.
    expect(message['⚡']!.attachments[0].blocks[2].text.text).toBe('*stdout*\n```\nnothing to do\n```');
    expect(message['↻']!.attachments[0].blocks).toHaveLength(2);
  });

  it('shows each event in Discord with its own title and colour', () => {
    const embeds = receiver.to('/api/webhooks/123/token').map((request) => (request.json as Obj).embeds[0]);
    const titles = embeds.map((embed) => embed.title);
    expect(titles).toEqual(expect.arrayContaining(['↻ report recovered', '⏸ report suspended']));
    const embed = byEvent(embeds, (e) => e.title);
    expect(embed['↻ report recovered']!.color).toBe(0x2eb886);
    expect(embed['⚡ report finished suspiciously fast']!.color).toBe(0xecb22e);
    expect(embed['⏸ report suspended']!.description).toBe('**stderr**\n```\ndisk still full\n```');
    expect(embed['⏸ report suspended']!.fields).toContainEqual({
      name: 'Suspended',
      value: expect.stringMatching(/^suspended after 2 failed runs in a row/),
      inline: true,
    });
  });

  it('gives each event an e-mail subject of its own, keeping the spec’s two', () => {
    const subjects = smtp.received.map((mail) => mail.mail.subject);
    expect(subjects.sort()).toEqual(
      [
        '[service] ✗ report failed',
        '[service] ✗ report failed',
        '[service] ⏸ report suspended',
        '[service] ⏱ report running too long',
        '[service] ✓ report succeeded',
        '[service] ↻ report recovered',
        '[service] ⚡ report finished suspiciously fast',
      ].sort(),
    );
    const mail = (subject: string) => smtp.received.find((m) => m.mail.subject === subject)!.mail;
    const overrun = mail('[service] ⏱ report running too long').text!;
    expect(overrun).toMatch(
      /^Job: report\nStatus: running\nSchedule: 0 3 \* \* \*\nStarted: \S+\nRunning for: \d+ min/,
    );
    expect(overrun).toContain('Limit: 5 min 0 s (300000 ms)\nAttempt: 0\n');
    expect(mail('[service] ↻ report recovered').text).toContain('Failed runs before: 2\nFailing since: ');
    expect(mail('[service] ⏸ report suspended').text).toContain(
      'Suspended: suspended after 2 failed runs in a row',
    );
    const reminder = smtp.received.find((m) => m.mail.text?.includes('Reminder: the job is still failing'));
    expect(reminder?.mail.subject).toBe('[service] ✗ report failed');
  });

  it('carries the reason and what to try of the run a policy event is about, in every format', () => {
    const generic = receiver.to('/generic').map((request) => request.json as Obj);
    const aboutKilledRun = generic.filter((body) => body.execution?.exitCode === 137);
    expect(aboutKilledRun.map((body) => body.event).sort()).toEqual(['failed', 'suspended']);
    for (const body of aboutKilledRun) {
      expect(body.execution).toMatchObject({
        reason: 'SIGKILL',
        reasonMessage: SIGKILL.message,
        hint: expect.stringContaining('something killed the command'),
      });
    }
    const slack = receiver.to('/services/T000/B000/secret').map((request) => JSON.stringify(request.json));
    expect(slack.filter((text) => text.includes(`Reason: SIGKILL: ${SIGKILL.message}`))).toHaveLength(2);
    const suspendedEmbed = receiver
      .to('/api/webhooks/123/token')
      .map((request) => (request.json as Obj).embeds[0])
      .find((embed) => embed.title === '⏸ report suspended');
    expect(suspendedEmbed.fields).toContainEqual(expect.objectContaining({ name: 'Reason' }));
    expect(suspendedEmbed.fields).toContainEqual(expect.objectContaining({ name: 'Try' }));
    const suspendedMail = smtp.received.find((m) => m.mail.subject === '[service] ⏸ report suspended')!;
    expect(suspendedMail.mail.text).toContain(`Reason: SIGKILL: ${SIGKILL.message}\nTry: something killed`);
    // A run that went well has nothing to say.
    expect(generic.find((body) => body.event === 'recovered')!.execution).toMatchObject({
      reason: null,
      hint: null,
    });
  });

  it('shows each event in a Teams card of its own headline and colour, with the reason where there is one', () => {
    const cards = receiver.to('/teams').map((request) => (request.json as Obj).attachments[0].content);
    const card = byEvent(cards, (c) => c.fallbackText);
    const style = (headline: string) => card[headline]!.body[0].style;
    expect(style('↻ report recovered')).toBe('good');
    expect(style('⏸ report suspended')).toBe('attention');
    expect(style('⚡ report finished suspiciously fast')).toBe('warning');
    const overrun = cards.find((c) => c.fallbackText.startsWith('⏱'))!;
    expect(overrun.body[0].style).toBe('warning');
    expect(overrun.body[1].facts.map((fact: Obj) => fact.title)).toEqual([
      'Schedule',
      'Running for',
      'Limit',
      'Attempt',
      'Running since',
    ]);
    const texts = (c: Obj) =>
      c.body.filter((item: Obj) => item.type === 'RichTextBlock').map((item: Obj) => item.inlines[0].text);
    expect(texts(card['⏸ report suspended']!)).toEqual([
      `Reason: SIGKILL: ${SIGKILL.message}`,
      expect.stringMatching(/^Try: something killed the command/),
    ]);
    expect(card['⏸ report suspended']!.body[1].facts).toContainEqual({
      title: 'Suspended',
      value: expect.stringMatching(/^suspended after 2 failed runs in a row/),
    });
  });

  it('opens the job’s PagerDuty incident on failure and resolves it with the policy’s recovered', () => {
    const events = receiver.to('/pd/v2/enqueue').map((request) => request.json as Obj);
    expect(events).toHaveLength(6);
    for (const event of events) {
      expect(event).toMatchObject({ routing_key: ROUTING_KEY, dedup_key: `crondeck-job-${jobId}` });
    }
    const triggers = events.filter((event) => event.event_action === 'trigger');
    expect(triggers.map((event) => `${event.payload.class}:${event.payload.severity}`).sort()).toEqual(
      ['failed:error', 'failed:error', 'overrun:warning', 'suspended:critical', 'tooFast:warning'].sort(),
    );
    const resolves = events.filter((event) => event.event_action === 'resolve');
    expect(resolves).toEqual([
      { routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: `crondeck-job-${jobId}` },
    ]);
    // The resolve comes after the failures it ends (each phase's alerts were sent before the next).
    const lastFailure = Math.max(
      ...events.flatMap((event, index) =>
        ['failed', 'suspended'].includes(event.payload?.class) ? [index] : [],
      ),
    );
    expect(events.indexOf(resolves[0]!)).toBeGreaterThan(lastFailure);
    const suspended = triggers.find((event) => event.payload.class === 'suspended')!;
    expect(suspended.payload.custom_details).toMatchObject({
      reason: 'SIGKILL',
      hint: expect.stringContaining('something killed the command'),
      suspendedReason: expect.stringMatching(/^suspended after 2 failed runs in a row/),
      consecutiveFailures: 2,
    });
    const overrun = triggers.find((event) => event.payload.class === 'overrun')!;
    expect(overrun.payload.summary).toMatch(/^⏱ report still running after \d+ min \d+ s$/);
    expect(overrun.payload.custom_details).toMatchObject({ run: { maxDurationSeconds: 300 } });
    expect(overrun.payload.custom_details).not.toHaveProperty('executionId');
  });

  it('signs every policy event sent to a signed webhook, each alert with its own webhook-id', async () => {
    const requests = receiver.to('/signed');
    expect(requests.map((request) => (request.json as Obj).event).sort()).toEqual(
      ['failed', 'failed', 'suspended', 'overrun', 'success', 'recovered', 'tooFast'].sort(),
    );
    for (const request of requests) {
      // The service's clock moved on by hand: the timestamp is checked against its own time.
      const sentAt = Number(request.headers['webhook-timestamp']);
      expect(verifyStandardWebhook(SECRET, request.headers, request.text, sentAt)).toBe(true);
      expect(request.headers['webhook-id']).toBe(request.headers['idempotency-key']);
    }
    await untilNoAlertInFlight(service.db.pool);
    const { rows } = await service.db.pool.query<{ id: string; signing_secret: string | null }>(
      `SELECT id, signing_secret FROM alert_outbox WHERE destination = $1 ORDER BY id`,
      [`${receiver.url}/signed`],
    );
    expect(requests.map((request) => request.headers['webhook-id']).sort()).toEqual(
      rows.map((row) => `crondeck-alert-${row.id}`).sort(),
    );
    // Delivered: the secret is not kept with the alert.
    expect(rows.every((row) => row.signing_secret === null)).toBe(true);
  });
});
