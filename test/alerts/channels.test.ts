import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveAlertConfig } from '../../src/store/alerts';
import { eventually, startTestService, type TestService } from '../support/service';
import { Receiver } from './support/receiver';

const ROUTING_KEY = 'R0123456789abcdefABCDEF012345678';
const TEAMS_URL =
  'https://prod-12.westus.logic.azure.com:443/workflows/0a1b2c/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=abc';

/**
 * Teams Workflows and PagerDuty's Events API as receivers get them, over real HTTP on loopback.
 * Their real hosts are mapped to the receiver through the service's test seam (the format is still
 * chosen from the configured URL); a PagerDuty-compatible endpoint of one's own is named with
 * `format: "pagerduty"`.
 */
describe('Teams and PagerDuty webhooks', () => {
  let receiver: Receiver;
  let service: TestService;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crondeck-channels-'));
    receiver = await Receiver.start((request) => ({
      status: request.path.includes('/v2/enqueue') ? 202 : 200,
      body: '{"status":"success","message":"Event processed"}',
    }));
    service = await startTestService({
      alerting: {
        pollIntervalMs: 50,
        resolveWebhookTarget: (url) =>
          url.hostname.endsWith('.logic.azure.com') || url.hostname === 'events.pagerduty.com'
            ? new URL(`/${url.hostname}${url.pathname}${url.search}`, receiver.url)
            : url,
      },
    });
  });
  afterAll(async () => {
    await service.stop();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function createJob(name: string, command: string): Promise<number> {
    const created = await service.request('POST', '/api/jobs', { name, schedule: '*/15 * * * *', command });
    expect(created.status).toBe(201);
    return created.body.id;
  }

  async function runOnce(jobId: number) {
    await service.request('POST', `/api/jobs/${jobId}/run`);
    await service.local.idle();
    const list = await service.request('GET', `/api/executions?jobId=${jobId}&limit=1`);
    return (await service.request('GET', `/api/executions/${list.body[0].id}`)).body;
  }

  it('sends a Teams Workflows URL an Adaptive Card message', async () => {
    const jobId = await createJob(
      'nightly_report',
      `echo 'ran **bold** [x](https://evil.example)' >&2; exit 3`,
    );
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, {
      webhooks: [{ url: TEAMS_URL, events: ['failed'] }],
    });
    expect(put.status).toBe(200);
    expect(put.body.webhooks).toEqual([{ url: TEAMS_URL, events: ['failed'] }]);
    const execution = await runOnce(jobId);
    const path = '/prod-12.westus.logic.azure.com/workflows/0a1b2c/triggers/manual/paths/invoke';
    await eventually(async () => receiver.requests.some((r) => r.path.startsWith(path)));

    const request = receiver.requests.find((r) => r.path.startsWith(path))!;
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.path).toBe(`${path}?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=abc`);
    expect(request.json).toEqual({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            fallbackText: '✗ nightly_report failed',
            msteams: { width: 'Full' },
            body: [
              {
                type: 'Container',
                style: 'attention',
                bleed: true,
                items: [
                  {
                    type: 'RichTextBlock',
                    inlines: [
                      {
                        type: 'TextRun',
                        text: '✗ nightly_report failed',
                        weight: 'Bolder',
                        size: 'Large',
                        color: 'Attention',
                      },
                    ],
                  },
                ],
              },
              {
                type: 'FactSet',
                facts: [
                  { title: 'Schedule', value: '\\*/15 \\* \\* \\* \\*' },
                  { title: 'Duration', value: `${execution.durationMs} ms` },
                  { title: 'Exit code', value: '3' },
                  { title: 'Attempt', value: '0' },
                ],
              },
              { type: 'TextBlock', text: 'stderr', weight: 'Bolder', spacing: 'Medium' },
              {
                type: 'Container',
                style: 'emphasis',
                items: [
                  {
                    type: 'RichTextBlock',
                    inlines: [
                      {
                        type: 'TextRun',
                        text: 'ran **bold** [x](https://evil.example)',
                        fontType: 'Monospace',
                        size: 'Small',
                      },
                    ],
                  },
                ],
              },
            ],
          },
        },
      ],
    });
  });

  it('triggers a PagerDuty incident per job on failure and resolves it with the same dedup_key on success', async () => {
    const flag = join(dir, 'healthy');
    const jobId = await createJob('pd-job', `echo 'disk full' >&2; test -f '${flag}'`);
    const ownEndpoint = `${receiver.url}/own/v2/enqueue?routing_key=${ROUTING_KEY}&team=ops`;
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, {
      webhooks: [
        // PagerDuty's own endpoint, recognised by its URL.
        {
          url: `https://events.pagerduty.com/v2/enqueue?routing_key=${ROUTING_KEY}`,
          events: ['failed', 'success'],
        },
        // An endpoint of one's own that speaks the Events API, named by format.
        { url: ownEndpoint, events: ['failed', 'timeout', 'success'], format: 'pagerduty' },
      ],
    });
    expect(put.status).toBe(200);
    expect(put.body.webhooks[1]).toEqual({
      url: ownEndpoint,
      events: ['success', 'failed', 'timeout'],
      format: 'pagerduty',
    });
    const events = () => receiver.requests.filter((r) => r.path.includes('/v2/enqueue'));

    const failed = await runOnce(jobId);
    expect(failed.status).toBe('failed');
    await eventually(async () => events().length >= 2);
    writeFileSync(flag, '');
    const succeeded = await runOnce(jobId);
    expect(succeeded.status).toBe('success');
    await eventually(async () => events().length >= 4);

    // The routing key travels in the body, never in the URL.
    expect(receiver.to('/events.pagerduty.com/v2/enqueue')).toHaveLength(2);
    expect(receiver.to('/own/v2/enqueue?team=ops')).toHaveLength(2);
    for (const path of ['/events.pagerduty.com/v2/enqueue', '/own/v2/enqueue?team=ops']) {
      const [trigger, resolve] = receiver.to(path);
      expect(trigger!.answered).toBe(202);
      expect(trigger!.json).toEqual({
        routing_key: ROUTING_KEY,
        event_action: 'trigger',
        dedup_key: `crondeck-job-${jobId}`,
        client: 'Crondeck',
        payload: {
          summary: '✗ pd-job failed (exit code 1, attempt 0)',
          source: 'crondeck:pd-job',
          severity: 'error',
          timestamp: failed.finishedAt,
          component: 'pd-job',
          group: 'crondeck',
          class: 'failed',
          custom_details: expect.objectContaining({
            jobId,
            executionId: failed.id,
            exitCode: 1,
            stderrTail: 'disk full\n',
          }),
        },
      });
      expect(resolve!.json).toEqual({
        routing_key: ROUTING_KEY,
        event_action: 'resolve',
        dedup_key: `crondeck-job-${jobId}`,
      });
    }
  });

  it.each([
    [
      'a PagerDuty URL without its routing key',
      { url: 'https://events.pagerduty.com/v2/enqueue', events: ['failed'] },
      /^webhooks\.0\.url: a PagerDuty destination needs \?routing_key= once, with the 32-character integration key/,
    ],
    [
      'a format named pagerduty on a URL without a key',
      {
        url: 'https://pd-proxy.internal/v2/enqueue?routing_key=123',
        events: ['failed'],
        format: 'pagerduty',
      },
      /^webhooks\.0\.url: a PagerDuty destination needs \?routing_key=/,
    ],
    [
      'an unknown format',
      { url: 'https://example.com/x', events: ['failed'], format: 'msteams' },
      /^webhooks\.0\.format: must be one of generic, slack, discord, teams, pagerduty$/,
    ],
    [
      'a secret on a Teams URL',
      { url: TEAMS_URL, events: ['failed'], secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}` },
      /^webhooks\.0\.secret: only generic JSON webhooks are signed; this one gets the teams format$/,
    ],
  ])('refuses %s with 400 naming the field', async (_, webhook, message) => {
    const jobId = await createJob(`bad-${Math.random().toString(36).slice(2, 8)}`, 'true');
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, { webhooks: [webhook] });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ error: expect.stringMatching(message) });
    expect((await service.request('GET', `/api/jobs/${jobId}/alerts`)).body).toEqual({
      webhooks: [],
      emails: [],
    });
  });
});

describe('the deny list for Teams and PagerDuty destinations', () => {
  it('refuses a denied address when configured, and again when sending what was stored earlier', async () => {
    const receiver = await Receiver.start();
    const service = await startTestService({
      env: { SERVICE_WEBHOOK_DENY_CIDRS: '127.0.0.0/8' },
      alerting: { pollIntervalMs: 50, retryDelaysMs: [50] },
    });
    try {
      const jobId = (
        await service.request('POST', '/api/jobs', { name: 'denied', schedule: '@daily', command: 'exit 1' })
      ).body.id;
      const pagerDuty = {
        url: `${receiver.url}/v2/enqueue?routing_key=${ROUTING_KEY}`,
        events: ['failed' as const],
        format: 'pagerduty' as const,
      };
      const teams = { url: `${receiver.url}/teams`, events: ['failed' as const], format: 'teams' as const };
      for (const webhook of [pagerDuty, teams]) {
        const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, { webhooks: [webhook] });
        expect(put.status).toBe(400);
        expect(put.body.error).toBe(
          'webhooks.0.url: 127.0.0.1 is in a range that SERVICE_WEBHOOK_DENY_CIDRS denies',
        );
      }
      // Stored before the range was denied: the delivery refuses it.
      await saveAlertConfig(service.db.pool, jobId, { webhooks: [pagerDuty, teams], emails: [] }, 'api');
      await service.request('POST', `/api/jobs/${jobId}/run`);
      await service.local.idle();
      await eventually(async () => {
        const { rows } = await service.db.pool.query<{ state: string; last_error: string }>(
          'SELECT state, last_error FROM alert_outbox WHERE job_id = $1',
          [jobId],
        );
        return rows.length === 2 && rows.every((row) => row.state === 'failed') ? rows : null;
      }).then((rows) =>
        rows.forEach((row) => expect(row.last_error).toBe('127.0.0.1 is in SERVICE_WEBHOOK_DENY_CIDRS')),
      );
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await service.stop();
      await receiver.close();
    }
  });
});
