import { eventually, startTestService, type TestService } from '../support/service';
import { Receiver } from './support/receiver';

/**
 * The three webhook formats as a receiver gets them, over real HTTP on loopback. Slack's host is
 * mapped to the receiver through the service's test seam; Discord is recognised by its path.
 */
describe('webhook alerts', () => {
  let receiver: Receiver;
  let service: TestService;

  beforeAll(async () => {
    receiver = await Receiver.start();
    service = await startTestService({
      alerting: {
        pollIntervalMs: 50,
        resolveWebhookTarget: (url) =>
          url.hostname === 'hooks.slack.com' ? new URL(url.pathname, receiver.url) : url,
      },
    });
  });
  afterAll(async () => {
    await service.stop();
    await receiver.close();
  });

  async function createJob(fields: Record<string, unknown>): Promise<number> {
    const created = await service.request('POST', '/api/jobs', { schedule: '*/15 * * * *', ...fields });
    expect(created.status).toBe(201);
    return created.body.id;
  }

  async function putAlerts(jobId: number, config: unknown): Promise<void> {
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, config);
    expect(put.status).toBe(200);
  }

  /** Runs the job once and returns its (final) execution as the API shows it, with full output. */
  async function runOnce(jobId: number) {
    await service.request('POST', `/api/jobs/${jobId}/run`);
    await service.local.idle();
    const list = await service.request('GET', `/api/executions?jobId=${jobId}&limit=1`);
    return (await service.request('GET', `/api/executions/${list.body[0].id}`)).body;
  }

  it('sends the generic payload, Slack blocks and a Discord embed for a failure, each exactly', async () => {
    const jobId = await createJob({
      name: 'nightly_report',
      command: `printf 'hello <!channel> *bold*\\n'; printf 'boom \`\`\` <@U123> & [x](https://evil.example)\\n' >&2; exit 3`,
    });
    await putAlerts(jobId, {
      webhooks: [
        { url: `${receiver.url}/generic`, events: ['failed'] },
        { url: 'https://hooks.slack.com/services/T000/B000/secret', events: ['failed', 'timeout'] },
        { url: `${receiver.url}/api/webhooks/123/token`, events: ['failed'] },
      ],
    });
    const before = Date.now();
    const execution = await runOnce(jobId);
    await eventually(async () => receiver.requests.length >= 3);

    expect(execution).toMatchObject({ status: 'failed', exitCode: 3, attempt: 0 });
    expect(execution.durationMs).toBeLessThan(1000);

    const [generic] = receiver.to('/generic');
    expect(generic!.method).toBe('POST');
    expect(generic!.headers['content-type']).toBe('application/json');
    expect(generic!.headers['idempotency-key']).toMatch(/^crondeck-alert-\d+$/);
    expect(generic!.json).toEqual({
      event: 'failed',
      job: {
        id: jobId,
        name: 'nightly_report',
        schedule: '*/15 * * * *',
        command: `printf 'hello <!channel> *bold*\\n'; printf 'boom \`\`\` <@U123> & [x](https://evil.example)\\n' >&2; exit 3`,
      },
      execution: {
        id: execution.id,
        status: 'failed',
        exitCode: 3,
        durationMs: execution.durationMs,
        startedAt: execution.startedAt,
        finishedAt: execution.finishedAt,
        stdoutTail: 'hello <!channel> *bold*\n',
        stderrTail: 'boom ``` <@U123> & [x](https://evil.example)\n',
        attempt: 0,
        // A plain non-zero exit: nothing more to say (the extension's fields are there, null).
        reason: null,
        reasonMessage: null,
        hint: null,
      },
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    // The spec's fields in the spec's order; extensions only after them.
    expect(Object.keys(generic!.json)).toEqual(['event', 'job', 'execution', 'timestamp']);
    expect(Object.keys(generic!.json.execution)).toEqual([
      'id',
      'status',
      'exitCode',
      'durationMs',
      'startedAt',
      'finishedAt',
      'stdoutTail',
      'stderrTail',
      'attempt',
      'reason',
      'reasonMessage',
      'hint',
    ]);
    const raisedAt = Date.parse(generic!.json.timestamp);
    expect(raisedAt).toBeGreaterThanOrEqual(before);
    expect(raisedAt).toBeLessThanOrEqual(Date.now());

    const duration = `${execution.durationMs} ms`;
    const [slack] = receiver.to('/services/T000/B000/secret');
    expect(slack!.json).toEqual({
      text: '✗ nightly_report failed',
      mrkdwn: false,
      attachments: [
        {
          color: '#e01e5a',
          blocks: [
            { type: 'header', text: { type: 'plain_text', text: '✗ nightly_report failed', emoji: false } },
            {
              type: 'section',
              fields: [
                { type: 'mrkdwn', text: '*Schedule*\n`*/15 * * * *`' },
                { type: 'mrkdwn', text: `*Duration*\n${duration}` },
                { type: 'mrkdwn', text: '*Exit code*\n3' },
                { type: 'mrkdwn', text: '*Attempt*\n0' },
              ],
            },
            {
              type: 'section',
              text: {
                type: 'mrkdwn',
                // Mentions and links escaped; the backticks cannot close the code block.
                text: '*stderr*\n```\nboom `\u200b`\u200b`\u200b &lt;@U123&gt; &amp; [x](https://evil.example)\n```',
              },
            },
          ],
        },
      ],
    });

    const [discord] = receiver.to('/api/webhooks/123/token');
    expect(discord!.json).toEqual({
      embeds: [
        {
          title: '✗ nightly\\_report failed',
          color: 0xe01e5a,
          fields: [
            { name: 'Schedule', value: '`*/15 * * * *`', inline: true },
            { name: 'Duration', value: duration, inline: true },
            { name: 'Exit code', value: '3', inline: true },
            { name: 'Attempt', value: '0', inline: true },
          ],
          timestamp: execution.finishedAt,
          description: '**stderr**\n```\nboom `\u200b`\u200b`\u200b <@U123> & [x](https://evil.example)\n```',
        },
      ],
      allowed_mentions: { parse: [] },
    });
  });

  it('sends a success only to destinations that asked for it, green and without output blocks', async () => {
    receiver.requests.length = 0;
    const jobId = await createJob({ name: 'ok-job', command: 'echo all good' });
    await putAlerts(jobId, {
      webhooks: [
        { url: `${receiver.url}/only-failures`, events: ['failed', 'timeout'] },
        { url: `${receiver.url}/everything`, events: ['success', 'failed', 'timeout'] },
        // The spec's rule is "the URL contains" Slack's host: here it is in the path of a relay.
        { url: `${receiver.url}/hooks.slack.com/services/T000/B000/ok`, events: ['success'] },
        { url: `${receiver.url}/api/webhooks/9/ok`, events: ['success'] },
      ],
    });
    const execution = await runOnce(jobId);
    await eventually(async () => receiver.requests.length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect(receiver.requests.map((r) => r.path).sort()).toEqual([
      '/api/webhooks/9/ok',
      '/everything',
      '/hooks.slack.com/services/T000/B000/ok',
    ]);
    expect(receiver.to('/everything')[0]!.json).toMatchObject({
      event: 'success',
      execution: { status: 'success', exitCode: 0, stdoutTail: 'all good\n', stderrTail: '' },
    });
    const duration = `${execution.durationMs} ms`;
    expect(receiver.to('/hooks.slack.com/services/T000/B000/ok')[0]!.json).toEqual({
      text: '✓ ok-job succeeded',
      mrkdwn: false,
      attachments: [
        {
          color: '#2eb886',
          blocks: [
            { type: 'header', text: { type: 'plain_text', text: '✓ ok-job succeeded', emoji: false } },
            {
              type: 'section',
              fields: [
                { type: 'mrkdwn', text: '*Schedule*\n`*/15 * * * *`' },
                { type: 'mrkdwn', text: `*Duration*\n${duration}` },
                { type: 'mrkdwn', text: '*Exit code*\n0' },
                { type: 'mrkdwn', text: '*Attempt*\n0' },
              ],
            },
          ],
        },
      ],
    });
    expect(receiver.to('/api/webhooks/9/ok')[0]!.json).toEqual({
      embeds: [
        {
          title: '✓ ok-job succeeded',
          color: 0x2eb886,
          fields: [
            { name: 'Schedule', value: '`*/15 * * * *`', inline: true },
            { name: 'Duration', value: duration, inline: true },
            { name: 'Exit code', value: '0', inline: true },
            { name: 'Attempt', value: '0', inline: true },
          ],
          timestamp: execution.finishedAt,
        },
      ],
      allowed_mentions: { parse: [] },
    });
  });

  it('alerts once per run, for its final attempt, with the tails of long output', async () => {
    receiver.requests.length = 0;
    const jobId = await createJob({
      name: 'flaky',
      command: `i=0; while [ $i -lt 300 ]; do printf 'out%03d\\n' $i; printf 'err%03d\\n' $i >&2; i=$((i+1)); done; exit 1`,
      retry: { maxAttempts: 2, baseDelay: 0 },
    });
    await putAlerts(jobId, { webhooks: [{ url: `${receiver.url}/flaky`, events: ['failed'] }] });
    const execution = await runOnce(jobId);
    expect(execution.attempt).toBe(2);
    await eventually(async () => receiver.to('/flaky').length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const alerts = receiver.to('/flaky');
    expect(alerts).toHaveLength(1);
    const payload = alerts[0]!.json;
    expect(payload.execution).toMatchObject({ id: execution.id, attempt: 2, exitCode: 1 });
    expect(payload.execution.stdoutTail).toBe(execution.stdout.slice(-500));
    expect(payload.execution.stderrTail).toBe(execution.stderr.slice(-500));
    expect(payload.execution.stderrTail).toHaveLength(500);
    expect(payload.execution.stderrTail.endsWith('err299\n')).toBe(true);
  });

  it('sends a timeout to destinations that list timeout, and nothing for a skipped fire time', async () => {
    receiver.requests.length = 0;
    const jobId = await createJob({ name: 'slow', command: 'sleep 5', timeout: 1 });
    await putAlerts(jobId, {
      webhooks: [
        { url: `${receiver.url}/timeouts`, events: ['timeout'] },
        { url: `${receiver.url}/failures-only`, events: ['failed'] },
      ],
    });
    const execution = await runOnce(jobId);
    expect(execution.status).toBe('timeout');
    await eventually(async () => receiver.to('/timeouts').length >= 1);

    const job = await service.jobs.get(jobId);
    await service.recorder.recordFinished(
      job,
      {
        status: 'skipped',
        startedAt: new Date(),
        finishedAt: new Date(),
        exitCode: -1,
        stdout: '',
        stderr: 'skipped\n',
        attempt: 0,
      },
      true,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests.map((r) => r.path)).toEqual(['/timeouts']);
    expect(receiver.requests[0]!.json).toMatchObject({ event: 'timeout', execution: { status: 'timeout' } });
  });
});
