import type { AlertSnapshot } from '../alertSnapshot';
import { discordMessage, isDiscordUrl } from './discord';
import { genericPayload } from './generic';
import { isSlackUrl, slackMessage } from './slack';

export type WebhookFormat = 'slack' | 'discord' | 'generic';

/** The format a webhook URL gets (spec section 6): Slack's host or API path, Discord's path, else raw JSON. */
export function webhookFormatOf(url: string): WebhookFormat {
  const parsed = new URL(url);
  if (isSlackUrl(parsed)) return 'slack';
  if (isDiscordUrl(parsed)) return 'discord';
  return 'generic';
}

export function webhookBody(url: string, snapshot: AlertSnapshot): unknown {
  switch (webhookFormatOf(url)) {
    case 'slack':
      return slackMessage(snapshot);
    case 'discord':
      return discordMessage(snapshot);
    default:
      return genericPayload(snapshot);
  }
}
