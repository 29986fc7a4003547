import type { AlertSnapshot } from '../../src/alerts/alertSnapshot';
import { destinationsFor } from '../../src/alerts/destinations';
import { PAGERDUTY_LIMITS, pagerDutyEndpoint, pagerDutyEvent } from '../../src/alerts/formats/pagerduty';
import { teamsMessage } from '../../src/alerts/formats/teams';
import { webhookFormatOf } from '../../src/alerts/formats/webhookFormat';
import { checkWebhookChannels } from '../../src/alerts/webhookChannels';
import { publicAlertConfig, resolveWebhookSecrets } from '../../src/alerts/webhookSecrets';
import { standardWebhookHeaders } from '../../src/alerts/webhookSigning';
import { alertConfigSchema, webhookSecretKey } from '../../src/domain/alertConfig';

const ROUTING_KEY = 'R0123456789abcdefABCDEF012345678';

function snapshot(overrides: {
  event?: string;
  name?: string;
  schedule?: string;
  stderr?: string;
  reason?: string;
  reasonMessage?: string;
}) {
  const event = (overrides.event ?? 'failed') as AlertSnapshot['event'];
  return {
    event,
    job: {
      id: 7,
      name: overrides.name ?? 'backup',
      schedule: overrides.schedule ?? '0 2 * * *',
      command: 'pg_dump',
    },
    execution: {
      id: 11,
      status: event,
      exitCode: 3,
      durationMs: 1234,
      startedAt: '2026-01-01T02:00:00.000Z',
      finishedAt: '2026-01-01T02:00:01.234Z',
      stdoutTail: 'out\n',
      stderrTail: overrides.stderr ?? 'boom\n',
      attempt: 2,
      ...(overrides.reason
        ? { reason: overrides.reason, reasonMessage: overrides.reasonMessage ?? null }
        : {}),
    },
    timestamp: '2026-01-01T02:00:01.300Z',
  } satisfies AlertSnapshot;
}

/** An overrun of the alert policy: about a run still going, without an execution. */
const overrun = {
  event: 'overrun',
  job: { id: 7, name: 'backup', schedule: '0 2 * * *', command: 'pg_dump' },
  run: {
    startedAt: '2026-01-01T02:00:00.000Z',
    runningForMs: 7_500_000,
    maxDurationSeconds: 3600,
    attempt: 1,
  },
  timestamp: '2026-01-01T04:05:00.000Z',
} satisfies AlertSnapshot;

const OOM = {
  reason: 'OOMKilled',
  reasonMessage: 'container "job" reached its memory limit of 64Mi',
};

describe('format choice for Teams Workflows and PagerDuty', () => {
  it.each([
    [
      'https://prod-12.westus.logic.azure.com:443/workflows/0a1b/triggers/manual/paths/invoke?api-version=2016-06-01&sig=x',
      'teams',
    ],
    [
      'https://default0a1b2c.3d.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/0a1b/triggers/manual/paths/invoke?api-version=1&sig=x',
      'teams',
    ],
    ['https://prod.westeurope.powerautomate.com/workflows/0a1b/triggers/manual/paths/invoke', 'teams'],
    // A workflow host without a workflow trigger path, and a trigger path on another host.
    ['https://management.logic.azure.com/subscriptions/1/resourceGroups/x', 'generic'],
    ['https://example.com/workflows/0a1b/triggers/manual/paths/invoke', 'generic'],
    ['https://logic.azure.com.evil.example/workflows/0a1b/triggers/manual', 'generic'],
    [`https://events.pagerduty.com/v2/enqueue?routing_key=${ROUTING_KEY}`, 'pagerduty'],
    [`https://events.eu.pagerduty.com/v2/enqueue?routing_key=${ROUTING_KEY}`, 'pagerduty'],
    ['https://EVENTS.PAGERDUTY.COM/v2/enqueue', 'pagerduty'],
    // The path alone does not make PagerDuty: a receiver of one's own stays generic.
    ['http://127.0.0.1:8080/v2/enqueue', 'generic'],
    ['https://events.pagerduty.com/v2/change/enqueue', 'generic'],
    ['https://events.pagerduty.com.evil.example/v2/enqueue', 'generic'],
  ])('%s gets the %s format', (url, format) => {
    expect(webhookFormatOf(url)).toBe(format);
  });

  it('takes the format a webhook entry names over the URL', () => {
    expect(webhookFormatOf('http://127.0.0.1:8080/v2/enqueue', 'pagerduty')).toBe('pagerduty');
    expect(webhookFormatOf('https://hooks.slack.com/services/T/B/X', 'generic')).toBe('generic');
    expect(webhookFormatOf('https://chat.internal/hook', 'teams')).toBe('teams');
  });
});

describe('Teams format', () => {
  const card = (message: ReturnType<typeof teamsMessage>) => message.attachments[0]!.content;

  it('is a message with one Adaptive Card attachment, facts and a stderr block on failure', () => {
    const message = teamsMessage(snapshot({ event: 'timeout' }));
    expect(message.type).toBe('message');
    expect(message.attachments).toHaveLength(1);
    expect(message.attachments[0]!.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card(message)).toMatchObject({
      type: 'AdaptiveCard',
      version: '1.4',
      fallbackText: '✗ backup timed out',
    });
    const [header, facts, label, output] = card(message).body as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(header.style).toBe('attention');
    expect(header.items[0].inlines[0]).toMatchObject({
      type: 'TextRun',
      text: '✗ backup timed out',
      color: 'Attention',
    });
    expect(facts.facts).toEqual([
      { title: 'Schedule', value: '0 2 \\* \\* \\*' },
      { title: 'Duration', value: '1.2 s' },
      { title: 'Exit code', value: '3' },
      { title: 'Attempt', value: '2' },
    ]);
    expect(label).toMatchObject({ type: 'TextBlock', text: 'stderr' });
    expect(output.items[0].inlines[0]).toMatchObject({ text: 'boom', fontType: 'Monospace' });
  });

  it('is green without output for a success', () => {
    const body = card(teamsMessage(snapshot({ event: 'success' }))).body as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(body).toHaveLength(2);
    expect(body[0].style).toBe('good');
    expect(body[0].items[0].inlines[0]).toMatchObject({ text: '✓ backup succeeded', color: 'Good' });
  });

  it('says why the run failed and what to try, in TextRuns, before the output', () => {
    const body = card(teamsMessage(snapshot({ ...OOM, reasonMessage: '**limit** [64Mi]' }))).body as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(body.map((item) => item.type)).toEqual([
      'Container',
      'FactSet',
      'RichTextBlock',
      'RichTextBlock',
      'TextBlock',
      'Container',
    ]);
    expect(body[2].inlines[0]).toEqual({ type: 'TextRun', text: 'Reason: OOMKilled: **limit** [64Mi]' });
    expect(body[3].inlines[0].text).toMatch(/^Try: raise resources\.limits\.memory/);
    expect(card(teamsMessage(snapshot({}))).body).toHaveLength(4);
  });

  it('shows the policy’s overrun in amber, with how long the run has gone on and no output', () => {
    const body = card(teamsMessage(overrun)).body as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(body).toHaveLength(2);
    expect(body[0].style).toBe('warning');
    expect(body[0].items[0].inlines[0]).toMatchObject({
      text: '⏱ backup still running after 2 h 5 min',
      color: 'Warning',
    });
    expect(body[1].facts).toEqual([
      { title: 'Schedule', value: '0 2 \\* \\* \\*' },
      { title: 'Running for', value: '2 h 5 min' },
      { title: 'Limit', value: '1 h 0 min' },
      { title: 'Attempt', value: '1' },
      { title: 'Running since', value: '2026-01-01T02:00:00.000Z' },
    ]);
  });

  it('keeps names, schedules and output literal: TextRuns for text, escaped Markdown in facts, no template functions', () => {
    const hostile = '**bold** _i_ [x](https://evil.example) {{DATE(2017-02-14T06:00:00Z, SHORT)}}';
    const body = card(teamsMessage(snapshot({ name: hostile, schedule: '*/5 1,*/2 * * *', stderr: hostile })))
      .body as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    const title = body[0].items[0];
    expect(title.type).toBe('RichTextBlock');
    expect(title.inlines[0].text).toBe(
      '✗ **bold** _i_ [x](https://evil.example) {\u200b{DATE(2017-02-14T06:00:00Z, SHORT)}} failed',
    );
    expect(body[1].facts[0].value).toBe('\\*/5 1,\\*/2 \\* \\* \\*');
    expect(body[3].items[0].type).toBe('RichTextBlock');
    expect(body[3].items[0].inlines[0].text).not.toContain('{{');
  });
});

describe('PagerDuty format', () => {
  it('triggers the job’s incident for a failure, with the Events v2 fields', () => {
    expect(pagerDutyEvent(snapshot({}), ROUTING_KEY)).toEqual({
      routing_key: ROUTING_KEY,
      event_action: 'trigger',
      dedup_key: 'crondeck-job-7',
      client: 'Crondeck',
      payload: {
        summary: '✗ backup failed (exit code 3, attempt 2)',
        source: 'crondeck:backup',
        severity: 'error',
        timestamp: '2026-01-01T02:00:01.234Z',
        component: 'backup',
        group: 'crondeck',
        class: 'failed',
        custom_details: {
          event: 'failed',
          job: 'backup',
          jobId: 7,
          schedule: '0 2 * * *',
          command: 'pg_dump',
          executionId: 11,
          status: 'failed',
          exitCode: 3,
          duration: '1.2 s',
          durationMs: 1234,
          attempt: 2,
          startedAt: '2026-01-01T02:00:00.000Z',
          finishedAt: '2026-01-01T02:00:01.234Z',
          stderrTail: 'boom\n',
          stdoutTail: 'out\n',
        },
      },
    });
  });

  it('resolves the same incident on success and recovered; other problems trigger at their severity', () => {
    for (const event of ['success', 'recovered']) {
      expect(pagerDutyEvent(snapshot({ event }), ROUTING_KEY)).toEqual({
        routing_key: ROUTING_KEY,
        event_action: 'resolve',
        dedup_key: 'crondeck-job-7',
      });
    }
    const severity = (event: string) =>
      (pagerDutyEvent(snapshot({ event }), ROUTING_KEY) as { payload: { severity: string } }).payload
        .severity;
    expect(['failed', 'timeout', 'suspended', 'overrun', 'missed'].map(severity)).toEqual([
      'error',
      'error',
      'critical',
      'warning',
      'warning',
    ]);
  });

  it('adds the reason and what to try to the details of a run that has a reason', () => {
    const event = pagerDutyEvent(snapshot(OOM), ROUTING_KEY) as { payload: { custom_details: object } };
    expect(event.payload.custom_details).toMatchObject({
      reason: 'OOMKilled',
      reasonMessage: 'container "job" reached its memory limit of 64Mi',
      hint: expect.stringMatching(/^raise resources\.limits\.memory/),
    });
    const plain = pagerDutyEvent(snapshot({}), ROUTING_KEY) as { payload: { custom_details: object } };
    expect(plain.payload.custom_details).not.toHaveProperty('reason');
  });

  it('triggers a warning for the policy’s overrun, with the run in progress in its details', () => {
    expect(pagerDutyEvent(overrun, ROUTING_KEY)).toEqual({
      routing_key: ROUTING_KEY,
      event_action: 'trigger',
      dedup_key: 'crondeck-job-7',
      client: 'Crondeck',
      payload: {
        summary: '⏱ backup still running after 2 h 5 min',
        source: 'crondeck:backup',
        severity: 'warning',
        timestamp: '2026-01-01T04:05:00.000Z',
        component: 'backup',
        group: 'crondeck',
        class: 'overrun',
        custom_details: {
          event: 'overrun',
          job: 'backup',
          jobId: 7,
          schedule: '0 2 * * *',
          command: 'pg_dump',
          run: overrun.run,
        },
      },
    });
  });

  it('keeps the summary within 1024 characters', () => {
    const event = pagerDutyEvent(snapshot({ name: 'n'.repeat(2000) }), ROUTING_KEY) as {
      payload: { summary: string };
    };
    expect(event.payload.summary.length).toBeLessThanOrEqual(PAGERDUTY_LIMITS.summary);
    expect(event.payload.summary.endsWith('…')).toBe(true);
  });

  it('takes the routing key out of the URL, keeping the rest', () => {
    expect(
      pagerDutyEndpoint(`https://events.pagerduty.com/v2/enqueue?a=1&routing_key=${ROUTING_KEY}`),
    ).toEqual({
      url: 'https://events.pagerduty.com/v2/enqueue?a=1',
      routingKey: ROUTING_KEY,
    });
    for (const query of [
      '',
      '?routing_key=short',
      `?routing_key=${ROUTING_KEY}&routing_key=${ROUTING_KEY}`,
    ]) {
      const endpoint = pagerDutyEndpoint(`https://events.pagerduty.com/v2/enqueue${query}`);
      expect(endpoint).toEqual({ problem: expect.stringContaining('needs ?routing_key= once') });
      expect(JSON.stringify(endpoint)).not.toContain('short');
    }
  });
});

describe('signing (Standard Webhooks)', () => {
  // The vector was computed apart from this code, with openssl:
  //   printf '%s' 'crondeck-alert-42.1767232801.{"event":"failed","n":1}' |
  //     openssl dgst -sha256 -mac HMAC -macopt hexkey:<hex of the key> -binary | base64
  const secret = 'whsec_Y3JvbmRlY2stdGVzdC1zaWduaW5nLWtleS0zMmJ5dGU=';

  it('signs id.timestamp.body with HMAC-SHA256 under the decoded key', () => {
    const sentAt = new Date('2026-01-01T02:00:01.999Z');
    expect(standardWebhookHeaders(secret, 'crondeck-alert-42', sentAt, '{"event":"failed","n":1}')).toEqual({
      'webhook-id': 'crondeck-alert-42',
      'webhook-timestamp': '1767232801',
      'webhook-signature': 'v1,lI+QMyTJ2aO0drAUdigIt627P59UizXEaALuMawNNaw=',
    });
  });

  it.each([
    ['whsec_' + Buffer.alloc(24, 1).toString('base64'), true],
    ['whsec_' + Buffer.alloc(64, 1).toString('base64'), true],
    ['whsec_' + Buffer.alloc(23, 1).toString('base64'), false],
    ['whsec_' + Buffer.alloc(65, 1).toString('base64'), false],
    [Buffer.alloc(32, 1).toString('base64'), false],
    ['whsec_' + Buffer.alloc(32, 1).toString('base64url').replace(/A/g, '-'), false],
    ['whsec_not base64 at all, but long enough to pass a length check', false],
  ])('%s is a key: %s', (value, ok) => {
    expect(webhookSecretKey(value) !== null).toBe(ok);
  });
});

describe('webhook entries', () => {
  const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
  const other = 'whsec_' + Buffer.alloc(32, 8).toString('base64');
  const parse = (webhooks: unknown[]) => alertConfigSchema.parse({ webhooks });

  it('keeps a stored secret for signed: true, refuses a signed URL sent back bare, drops it for signed: false', () => {
    const stored = [{ url: 'https://a.io/x', secret }];
    const kept = resolveWebhookSecrets(
      parse([{ url: 'https://a.io/x', events: ['failed'], signed: true }]),
      stored,
    );
    expect(kept.webhooks).toEqual([{ url: 'https://a.io/x', events: ['failed'], secret }]);
    const rotated = resolveWebhookSecrets(
      parse([{ url: 'https://a.io/x', events: ['failed'], secret: other }]),
      stored,
    );
    expect(rotated.webhooks[0]!.secret).toBe(other);
    const dropped = resolveWebhookSecrets(
      parse([{ url: 'https://a.io/x', events: ['failed'], signed: false }]),
      stored,
    );
    expect(dropped.webhooks).toEqual([{ url: 'https://a.io/x', events: ['failed'] }]);
    expect(() =>
      resolveWebhookSecrets(parse([{ url: 'https://a.io/x', events: ['failed'] }]), stored),
    ).toThrow(/^webhooks\.0: this webhook is signed; send "signed": true/);
    expect(() =>
      resolveWebhookSecrets(parse([{ url: 'https://b.io/x', events: ['failed'], signed: true }]), stored),
    ).toThrow(/^webhooks\.0\.signed: no secret is stored for this URL/);
  });

  it('shows signed: true in place of a secret', () => {
    expect(
      publicAlertConfig({
        webhooks: [
          { url: 'https://a.io/x', events: ['failed'], secret },
          { url: 'https://b.io/x', events: ['success'], format: 'teams' },
        ],
        emails: [],
      }),
    ).toEqual({
      webhooks: [
        { url: 'https://a.io/x', events: ['failed'], signed: true },
        { url: 'https://b.io/x', events: ['success'], format: 'teams' },
      ],
      emails: [],
    });
  });

  it('signs generic webhooks only, and wants a PagerDuty URL’s routing key', () => {
    expect(() =>
      checkWebhookChannels(parse([{ url: 'https://a.io/x', events: ['failed'], secret }])),
    ).not.toThrow();
    expect(() =>
      checkWebhookChannels(
        parse([{ url: 'https://hooks.slack.com/services/T/B/X', events: ['failed'], secret }]),
      ),
    ).toThrow('webhooks.0.secret: only generic JSON webhooks are signed; this one gets the slack format');
    expect(() =>
      checkWebhookChannels(
        parse([{ url: 'https://a.io/x', events: ['failed'], format: 'teams', signed: true }]),
      ),
    ).toThrow(/^webhooks\.0\.signed: only generic JSON webhooks are signed/);
    expect(() =>
      checkWebhookChannels(parse([{ url: 'https://events.pagerduty.com/v2/enqueue', events: ['failed'] }])),
    ).toThrow(/^webhooks\.0\.url: a PagerDuty destination needs \?routing_key= once/);
  });

  it('sends each URL as its first entry that wants the event says', () => {
    const config = parse([
      { url: 'https://a.io/x', events: ['success'], format: 'teams' },
      { url: 'https://a.io/x', events: ['failed'], secret },
      { url: 'https://a.io/x', events: ['failed', 'success'], secret: other },
    ]);
    expect(destinationsFor(config, 'failed').webhooks).toEqual([{ url: 'https://a.io/x', secret }]);
    expect(destinationsFor(config, 'success').webhooks).toEqual([{ url: 'https://a.io/x', format: 'teams' }]);
  });
});
