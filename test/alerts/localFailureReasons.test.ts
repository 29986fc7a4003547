import { eventually, startTestService, type TestService } from '../support/service';
import { Receiver } from './support/receiver';

/**
 * Why a local run failed, from real processes through the API: the execution's `reason`, and the
 * reason with a line of what to try in the generic payload, Slack's blocks and Discord's embed, as a
 * real HTTP receiver gets them.
 */
describe('failure reasons of local runs', () => {
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

  /** A job alerting every format on failure; runs it once and answers its execution (single read). */
  async function runJob(name: string, fields: Record<string, unknown>) {
    const created = await service.request('POST', '/api/jobs', { name, schedule: '0 0 1 1 *', ...fields });
    expect(created.status).toBe(201);
    const jobId = created.body.id as number;
    const put = await service.request('PUT', `/api/jobs/${jobId}/alerts`, {
      webhooks: [
        { url: `${receiver.url}/generic/${name}`, events: ['failed', 'timeout'] },
        { url: `https://hooks.slack.com/services/T0/B0/${name}`, events: ['failed', 'timeout'] },
        { url: `${receiver.url}/api/webhooks/1/${name}`, events: ['failed', 'timeout'] },
      ],
    });
    expect(put.status).toBe(200);
    await service.request('POST', `/api/jobs/${jobId}/run`);
    await service.local.idle();
    const list = await service.request('GET', `/api/executions?jobId=${jobId}`);
    expect(list.body).toHaveLength(1);
    const single = (await service.request('GET', `/api/executions/${list.body[0].id}`)).body;
    await eventually(async () => receiver.requests.filter((r) => r.path.endsWith(`/${name}`)).length === 3);
    return {
      listed: list.body[0],
      single,
      generic: receiver.to(`/generic/${name}`)[0]!.json,
      slack: receiver.to(`/services/T0/B0/${name}`)[0]!.json,
      discord: receiver.to(`/api/webhooks/1/${name}`)[0]!.json,
    };
  }

  it('names the signal that killed the command, with what to try, in the execution and every format', async () => {
    const { listed, single, generic, slack, discord } = await runJob('killed', {
      command: 'echo before; kill -KILL $$',
    });
    const reason = 'SIGKILL';
    const reasonMessage = 'the command was killed by SIGKILL (exit code 137)';
    expect(listed).toMatchObject({ status: 'failed', exitCode: 137, reason, reasonMessage });
    expect(single).toMatchObject({
      status: 'failed',
      exitCode: 137,
      reason,
      reasonMessage,
      stdout: 'before\n',
    });

    const hint = expect.stringContaining('out-of-memory kill cannot be told apart');
    expect(generic.execution).toMatchObject({ reason, reasonMessage, hint });
    const slackText = JSON.stringify(slack);
    expect(slackText).toContain(`Reason: SIGKILL: ${reasonMessage}`);
    expect(slackText).toContain('Try: something killed the command');
    expect(discord.embeds[0].fields).toEqual(
      expect.arrayContaining([
        // Discord's markdown escaped, as everywhere in the embed.
        {
          name: 'Reason',
          value: 'SIGKILL\\: the command was killed by SIGKILL \\(exit code 137\\)',
          inline: false,
        },
        { name: 'Try', value: expect.stringContaining('out-of-memory kill'), inline: false },
      ]),
    );
  });

  it('says that a run timed out, and how it was stopped', async () => {
    const { single, generic } = await runJob('slow', { command: 'sleep 30', timeout: 1 });
    expect(single).toMatchObject({
      status: 'timeout',
      exitCode: 143,
      reason: 'Timeout',
      reasonMessage: 'ran longer than its timeout of 1 s: stopped with SIGTERM',
    });
    expect(generic).toMatchObject({
      event: 'timeout',
      execution: { reason: 'Timeout', hint: 'raise the job’s timeout, or find what makes the command slow' },
    });
  });

  it('has nothing to say about a plain non-zero exit', async () => {
    const { single, generic, slack } = await runJob('plain', { command: 'exit 3' });
    expect(single).toMatchObject({ status: 'failed', exitCode: 3, reason: null, reasonMessage: null });
    expect(generic.execution).toMatchObject({ reason: null, reasonMessage: null, hint: null });
    expect(JSON.stringify(slack)).not.toContain('Reason:');
  });
});
