import type { AlertSnapshot } from '../alertSnapshot';
import {
  escapeWithin,
  type Fact,
  headline,
  hintLine,
  policyFacts,
  reasonLine,
  runFacts,
  separateBackticks,
  showsOutputBlock,
  shownOutput,
  type Tone,
  toneOf,
} from './presentation';

/** Slack's documented Block Kit limits, in characters. */
export const SLACK_LIMITS = { headerText: 150, sectionText: 3000, fieldText: 2000, messageText: 3000 };

const COLOURS: Record<Tone, string> = { good: '#2eb886', bad: '#e01e5a', warning: '#ecb22e' };

/**
 * Slack treats only `&`, `<` and `>` as control characters in text: escaped, nothing in a job name
 * or output can form a mention (`<!channel>`, `<@U123>`) or a link (`<https://…|label>`).
 */
function escapeSlack(character: string): string {
  switch (character) {
    case '&':
      return '&amp;';
    case '<':
      return '&lt;';
    case '>':
      return '&gt;';
    default:
      return character;
  }
}

/** Inside a code span or block mrkdwn is not interpreted; only the span's own end must be kept out. */
function inlineCode(value: string, max: number): string {
  return '`' + escapeWithin(value, max - 2, (c) => (c === '`' ? 'ˋ' : escapeSlack(c))) + '`';
}

function codeBlock(label: string, text: string, max: number): string {
  const opening = `*${label}*\n\`\`\`\n`;
  const closing = '\n```';
  // Trailing newlines would only show as blank lines at the end of the block.
  text = text.replace(/\s+$/, '');
  if (text.length === 0) return `*${label}*\n_(empty)_`;
  const body = escapeWithin(
    text,
    max - opening.length - closing.length,
    (c) => separateBackticks(escapeSlack(c)),
    'tail',
  );
  return opening + body + closing;
}

const field = (label: string, value: string) => ({ type: 'mrkdwn', text: `*${label}*\n${value}` });

function factField(fact: Fact) {
  const room = SLACK_LIMITS.fieldText - `*${fact.label}*\n`.length;
  return field(
    fact.label,
    fact.code ? inlineCode(fact.value, room) : escapeWithin(fact.value, room, escapeSlack),
  );
}

/**
 * A Block Kit message in one coloured attachment (green success, red failure, amber for a warning
 * of the alert policy): a header, the fields schedule, duration, exit code and attempt (what the
 * policy adds after them), the reason and what to try where there is one, and a stderr block on
 * failure. `text` is the notification fallback; `mrkdwn: false` keeps it free of formatting.
 */
export function slackMessage(snapshot: AlertSnapshot) {
  const title = headline(snapshot);
  const blocks: unknown[] = [
    {
      type: 'header',
      // plain_text is never parsed for markup; only the length needs care.
      text: {
        type: 'plain_text',
        text: escapeWithin(title, SLACK_LIMITS.headerText, (c) => c),
        emoji: false,
      },
    },
    // A section holds at most 10 fields.
    {
      type: 'section',
      fields: [...runFacts(snapshot), ...policyFacts(snapshot)].slice(0, 10).map(factField),
    },
  ];
  const why = whyText(snapshot);
  // plain_text, like the header: a reason quotes what Kubernetes said (an image name, a message).
  if (why) blocks.push({ type: 'section', text: { type: 'plain_text', text: why, emoji: false } });
  const output = shownOutput(snapshot);
  if (output && showsOutputBlock(snapshot)) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: codeBlock(output.stream, output.text, SLACK_LIMITS.sectionText) },
    });
  }
  return {
    text: escapeWithin(title, SLACK_LIMITS.messageText, escapeSlack),
    mrkdwn: false,
    attachments: [{ color: COLOURS[toneOf(snapshot)], blocks }],
  };
}

/** "Reason: OOMKilled: …" and "Try: …", within a section's length; null without a reason. */
function whyText(snapshot: AlertSnapshot): string | null {
  const reason = reasonLine(snapshot);
  if (!reason) return null;
  const hint = hintLine(snapshot);
  const text = `Reason: ${reason}${hint ? `\nTry: ${hint}` : ''}`;
  return escapeWithin(text, SLACK_LIMITS.sectionText, (c) => c);
}

/**
 * Spec section 6: a URL that contains the host of Slack's incoming webhooks (hooks.slack.com) or
 * Slack's Web API path (`slack.com/api/`, which takes the same message shape). Anywhere in the
 * URL, as the spec words it: a relay whose path or query names Slack's URL gets Slack's format.
 */
export function isSlackUrl(url: URL): boolean {
  const href = url.href.toLowerCase();
  return href.includes('hooks.slack.com') || href.includes('slack.com/api/');
}
