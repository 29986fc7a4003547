import type { AlertSnapshot } from '../../src/alerts/alertSnapshot';
import { lastCodePoints } from '../../src/domain/codePoints';
import { destinationsFor } from '../../src/alerts/destinations';
import { DISCORD_LIMITS, discordMessage } from '../../src/alerts/formats/discord';
import { emailMessage } from '../../src/alerts/formats/email';
import { formatDuration } from '../../src/alerts/formats/presentation';
import { SLACK_LIMITS, slackMessage } from '../../src/alerts/formats/slack';
import { webhookFormatOf } from '../../src/alerts/formats/webhookFormat';

/** A snapshot as an alert could carry it, with output chosen to attack each format. */
function snapshot(overrides: {
  event?: AlertSnapshot['event'];
  name?: string;
  stderr?: string;
  stdout?: string;
  reason?: { code: string; message: string };
}) {
  const event = overrides.event ?? 'failed';
  return {
    event,
    job: { id: 7, name: overrides.name ?? 'job', schedule: '0 2 * * *', command: 'true' },
    execution: {
      id: 11,
      status: event,
      exitCode: 1,
      durationMs: 1234,
      startedAt: '2026-01-01T02:00:00.000Z',
      finishedAt: '2026-01-01T02:00:01.234Z',
      stdoutTail: overrides.stdout ?? '',
      stderrTail: overrides.stderr ?? '',
      attempt: 2,
      ...(overrides.reason ? { reason: overrides.reason.code, reasonMessage: overrides.reason.message } : {}),
    },
    timestamp: '2026-01-01T02:00:01.300Z',
  } satisfies AlertSnapshot;
}

const HOSTILE =
  '<!channel> <@U123> <https://evil.example|click> @everyone [x](https://evil.example) *b* _i_ ~s~ ```end``` & <t:0> ||spoiler||';

describe('Slack format', () => {
  it('escapes everything Slack could read as a mention or link, and keeps code blocks closed', () => {
    const message = slackMessage(snapshot({ stderr: HOSTILE }));
    const stderrBlock = (message.attachments[0]!.blocks[2] as { text: { text: string } }).text.text;
    expect(stderrBlock.startsWith('*stderr*\n```\n')).toBe(true);
    expect(stderrBlock.endsWith('\n```')).toBe(true);
    const inside = stderrBlock.slice('*stderr*\n```\n'.length, -'\n```'.length);
    expect(inside).not.toMatch(/[<>]/);
    expect(inside).not.toContain('```');
    expect(inside).toContain('&lt;!channel&gt; &lt;@U123&gt; &lt;https://evil.example|click&gt;');
    expect(inside).toContain('&amp;');
  });

  it('stays within Slack’s documented limits, keeping the end of the output', () => {
    const huge = '&'.repeat(5000) + 'LAST LINE';
    const message = slackMessage(snapshot({ name: 'n'.repeat(200), stderr: huge }));
    const [header, fields, output] = message.attachments[0]!.blocks as [
      { text: { text: string } },
      { fields: { text: string }[] },
      { text: { text: string } },
    ];
    expect(header.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.headerText);
    expect(header.text.text.endsWith('…')).toBe(true);
    for (const field of fields.fields) expect(field.text.length).toBeLessThanOrEqual(SLACK_LIMITS.fieldText);
    expect(output.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    expect(output.text.text).toMatch(/```\n…(&amp;)+LAST LINE\n```$/);
    expect(message.text.length).toBeLessThanOrEqual(SLACK_LIMITS.messageText);
  });
});

describe('Discord format', () => {
  it('escapes markdown in the title, pings nobody, and keeps code blocks closed', () => {
    const message = discordMessage(snapshot({ name: 'db_backup_v2', stderr: HOSTILE }));
    const embed = message.embeds[0] as { title: string; description: string };
    expect(embed.title).toBe('✗ db\\_backup\\_v2 failed');
    expect(message.allowed_mentions).toEqual({ parse: [] });
    const inside = embed.description.slice('**stderr**\n```\n'.length, -'\n```'.length);
    expect(inside).not.toContain('```');
    expect(`\`\`\`\n${inside}\n\`\`\``.match(/```/g)).toHaveLength(2);
  });

  it('stays within Discord’s documented limits', () => {
    const message = discordMessage(
      snapshot({ event: 'timeout', name: '_'.repeat(200), stderr: '`'.repeat(5000) }),
    );
    const embed = message.embeds[0] as {
      title: string;
      description: string;
      fields: { name: string; value: string }[];
    };
    expect(embed.title.length).toBeLessThanOrEqual(DISCORD_LIMITS.title);
    expect(embed.title.startsWith('✗ \\_\\_')).toBe(true);
    expect(embed.description.length).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    const total =
      embed.title.length +
      embed.description.length +
      embed.fields.reduce((sum, field) => sum + field.name.length + field.value.length, 0);
    expect(total).toBeLessThanOrEqual(DISCORD_LIMITS.total);
    for (const field of embed.fields)
      expect(field.value.length).toBeLessThanOrEqual(DISCORD_LIMITS.fieldValue);
  });
});

describe('e-mail format', () => {
  it('uses the two subjects of the spec; a timeout reads "failed"', () => {
    expect(emailMessage(snapshot({ event: 'success' })).subject).toBe('[service] ✓ job succeeded');
    expect(emailMessage(snapshot({ event: 'failed' })).subject).toBe('[service] ✗ job failed');
    expect(emailMessage(snapshot({ event: 'timeout' })).subject).toBe('[service] ✗ job failed');
  });

  it('never lets a line break into the subject, and escapes the HTML part', () => {
    const message = emailMessage(snapshot({ name: 'a\r\nBcc: x@y.z', stderr: '<script>alert(1)</script>' }));
    expect(message.subject).toBe('[service] ✗ a Bcc: x@y.z failed');
    expect(message.html).not.toContain('<script>');
    expect(message.text).toContain('Duration: 1.2 s (1234 ms)\nExit code: 1\nAttempt: 2\n');
  });
});

describe('reason and what to try', () => {
  const oom = {
    code: 'OOMKilled',
    message:
      'container "run" reached its memory limit of 64Mi and was killed (Kubernetes does not report the peak)',
  };

  it('puts them in the e-mail, text and escaped HTML alike', () => {
    const message = emailMessage(snapshot({ reason: oom }));
    expect(message.text).toContain(
      `Attempt: 2\nReason: OOMKilled: ${oom.message}\n` +
        'Try: raise resources.limits.memory of the ScheduledJob, or make the command use less memory\n',
    );
    expect(message.html).toContain('<th align="left">Reason</th><td>OOMKilled: container &#34;run&#34;');
    expect(message.html).toContain('<th align="left">Try</th>');
  });

  it('quotes what Kubernetes said as plain text in Slack, and escaped in Discord', () => {
    const hostile = { code: 'ImagePullBackOff', message: `image "${HOSTILE}": Back-off pulling image` };
    const slack = slackMessage(snapshot({ reason: hostile }));
    expect(slack.attachments[0]!.blocks[2]).toEqual({
      type: 'section',
      text: {
        type: 'plain_text',
        text: `Reason: ImagePullBackOff: ${hostile.message}\nTry: check the image name and pull secret`,
        emoji: false,
      },
    });
    const discord = discordMessage(snapshot({ reason: hostile }));
    const fields = (discord.embeds[0] as { fields: { name: string; value: string }[] }).fields;
    const reason = fields.find((field) => field.name === 'Reason')!.value;
    expect(reason).toContain('\\<\\@U123\\>');
    expect(reason).not.toMatch(/(^|[^\\])[<>@*_]/);
    expect(fields.find((field) => field.name === 'Try')!.value).toBe('check the image name and pull secret');
  });

  it('says nothing where there is no reason, or none was recorded (an alert queued before reasons)', () => {
    const message = emailMessage(snapshot({}));
    expect(message.text).not.toContain('Reason:');
    expect(slackMessage(snapshot({})).attachments[0]!.blocks).toHaveLength(3);
    const fields = (discordMessage(snapshot({})).embeds[0] as { fields: { name: string }[] }).fields;
    expect(fields.map((field) => field.name)).toEqual(['Schedule', 'Duration', 'Exit code', 'Attempt']);
  });
});

describe('format choice by URL', () => {
  it.each([
    ['https://hooks.slack.com/services/T/B/X', 'slack'],
    ['https://HOOKS.SLACK.COM/services/T/B/X', 'slack'],
    ['https://slack.com/api/chat.postMessage', 'slack'],
    ['https://acme.slack.com/api/chat.postMessage', 'slack'],
    // Spec section 6 chooses by what the URL contains: Slack's host in a relay's path or query, or
    // as the start of another host, is Slack's format too.
    ['http://127.0.0.1:9000/hooks.slack.com/services/T/B/X', 'slack'],
    ['https://example.com/hook?u=hooks.slack.com', 'slack'],
    ['https://hooks.slack.com.relay.example/x', 'slack'],
    ['https://discord.com/api/webhooks/1/abc', 'discord'],
    ['https://discordapp.com/api/webhooks/1/abc', 'discord'],
    ['http://127.0.0.1:8080/api/webhooks/1/x', 'discord'],
    // Neither Slack's webhook host nor its API path, nor Discord's webhook path.
    ['https://slack.com/intl/en', 'generic'],
    ['https://slack.com/services/T/B/X', 'generic'],
    ['https://hooks.example.com/services/T/B/X', 'generic'],
    ['https://example.com/api/hooks', 'generic'],
    ['https://example.com/api/chat.postMessage', 'generic'],
    ['https://discord.com/channels/1/2', 'generic'],
  ])('%s gets the %s format', (url, format) => {
    expect(webhookFormatOf(url)).toBe(format);
  });
});

describe('helpers', () => {
  it('takes the last 500 characters without cutting an emoji in half', () => {
    expect(lastCodePoints('abc', 500)).toBe('abc');
    expect(lastCodePoints('x'.repeat(1000) + 'END', 500)).toBe('x'.repeat(497) + 'END');
    const emoji = '😀'.repeat(600);
    expect(Array.from(lastCodePoints(emoji, 500))).toHaveLength(500);
    expect(lastCodePoints('a😀b', 2)).toBe('😀b');
  });

  it('formats durations for people', () => {
    expect([0, 999, 1000, 12_345, 59_999, 60_000, 245_120, 3_600_000, 7_380_000].map(formatDuration)).toEqual(
      ['0 ms', '999 ms', '1.0 s', '12.3 s', '59.9 s', '1 min 0 s', '4 min 5 s', '1 h 0 min', '2 h 3 min'],
    );
  });

  it('sends each destination that lists the event one alert', () => {
    const config = {
      webhooks: [
        { url: 'https://a.io', events: ['failed' as const] },
        { url: 'https://a.io', events: ['failed' as const, 'timeout' as const] },
        { url: 'https://b.io', events: ['success' as const] },
      ],
      emails: [
        { to: ['ops@example.com', 'dba@example.com'], events: ['failed' as const] },
        { to: ['OPS@example.com', 'boss@example.com', 'Boss@Example.com'], events: ['failed' as const] },
        { to: ['happy@example.com'], events: ['success' as const] },
      ],
    };
    expect(destinationsFor(config, 'failed')).toEqual({
      webhooks: [{ url: 'https://a.io' }],
      emails: [['ops@example.com', 'dba@example.com'], ['boss@example.com']],
    });
    expect(destinationsFor(config, 'timeout')).toEqual({ webhooks: [{ url: 'https://a.io' }], emails: [] });
    expect(destinationsFor(config, 'success')).toEqual({
      webhooks: [{ url: 'https://b.io' }],
      emails: [['happy@example.com']],
    });
  });
});
