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

/** Discord's documented embed limits, in characters. */
export const DISCORD_LIMITS = {
  title: 256,
  description: 4096,
  fieldName: 256,
  fieldValue: 1024,
  total: 6000,
};

const COLOURS: Record<Tone, number> = { good: 0x2eb886, bad: 0xe01e5a, warning: 0xecb22e };

/**
 * Discord's markdown honours a backslash before any punctuation. Escaping the characters that
 * format (`*_~|`), quote, open links (`[]()`, `:` of a URL scheme), code (`` ` ``), headings (`#`)
 * and mentions or timestamps (`<>@`) leaves a name or output with no way to format or ping.
 */
function escapeDiscord(character: string): string {
  return /[\\*_~`|<>[\]()#@:]/.test(character) ? `\\${character}` : character;
}

function inlineCode(value: string): string {
  return '`' + escapeWithin(value, DISCORD_LIMITS.fieldValue - 2, (c) => (c === '`' ? 'ˋ' : c)) + '`';
}

/** Text of a field: escaped, within a field's length. */
function fieldText(text: string): string {
  return escapeWithin(text, DISCORD_LIMITS.fieldValue, escapeDiscord);
}

/** Inside a code block nothing is parsed (no markdown, links or mentions); only its end is kept out. */
function codeBlock(label: string, text: string, max: number): string {
  // Trailing newlines would only show as blank lines at the end of the block.
  text = text.replace(/\s+$/, '');
  if (text.length === 0) return `**${label}**\n*(empty)*`;
  const opening = `**${label}**\n\`\`\`\n`;
  const closing = '\n```';
  return (
    opening + escapeWithin(text, max - opening.length - closing.length, separateBackticks, 'tail') + closing
  );
}

function factField(fact: Fact) {
  return {
    name: fact.label,
    value: fact.code
      ? inlineCode(fact.value)
      : escapeWithin(fact.value, DISCORD_LIMITS.fieldValue, escapeDiscord),
    inline: true,
  };
}

/**
 * An embed message: coloured embed (green success, red failure, amber for a warning of the alert
 * policy), inline fields schedule, duration, exit code and attempt (what the policy adds after
 * them), the reason and what to try where there is one, and stderr on failure. `allowed_mentions` with nothing to parse is Discord's own guarantee
 * that the message pings no one, whatever it contains.
 */
export function discordMessage(snapshot: AlertSnapshot) {
  const title = escapeWithin(headline(snapshot), DISCORD_LIMITS.title, escapeDiscord);
  const fields = [...runFacts(snapshot), ...policyFacts(snapshot)].map(factField);
  const reason = reasonLine(snapshot);
  const hint = hintLine(snapshot);
  if (reason) fields.push({ name: 'Reason', value: fieldText(reason), inline: false });
  if (reason && hint) fields.push({ name: 'Try', value: fieldText(hint), inline: false });
  const embed: Record<string, unknown> = {
    title,
    color: COLOURS[toneOf(snapshot)],
    fields,
    timestamp: snapshot.execution?.finishedAt ?? snapshot.timestamp,
  };
  const output = shownOutput(snapshot);
  if (output && showsOutputBlock(snapshot)) {
    // The 6000-character budget covers the whole embed: the description gets what the rest leaves.
    const used = title.length + fields.reduce((sum, f) => sum + f.name.length + f.value.length, 0);
    const room = Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.total - used);
    embed.description = codeBlock(output.stream, output.text, room);
  }
  return { embeds: [embed], allowed_mentions: { parse: [] } };
}

/** Discord's webhooks are `https://discord.com/api/webhooks/<id>/<token>`: the path decides. */
export function isDiscordUrl(url: URL): boolean {
  return url.pathname.includes('/api/webhooks/');
}
