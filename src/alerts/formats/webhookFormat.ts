import type { WebhookFormat } from '../../domain/alertConfig';
import type { AlertSnapshot } from '../alertSnapshot';
import { discordMessage, isDiscordUrl } from './discord';
import { genericPayload } from './generic';
import { isPagerDutyUrl, pagerDutyEndpoint, pagerDutyEvent } from './pagerduty';
import { isSlackUrl, slackMessage } from './slack';
import { isTeamsWorkflowUrl, teamsMessage } from './teams';

/**
 * The format a webhook gets: the one its configuration names, else the one its URL implies (spec
 * section 6 for Slack, Discord and the generic JSON; Teams' Workflows and PagerDuty's Events API
 * by their hosts and paths).
 */
export function webhookFormatOf(url: string, configured?: WebhookFormat | null): WebhookFormat {
  if (configured) return configured;
  const parsed = new URL(url);
  if (isSlackUrl(parsed)) return 'slack';
  if (isDiscordUrl(parsed)) return 'discord';
  if (isTeamsWorkflowUrl(parsed)) return 'teams';
  if (isPagerDutyUrl(parsed)) return 'pagerduty';
  return 'generic';
}

/** What is wrong with a URL for its format (a PagerDuty URL without its key), or null. */
export function webhookUrlProblem(url: string, format: WebhookFormat): string | null {
  if (format !== 'pagerduty') return null;
  const endpoint = pagerDutyEndpoint(url);
  return 'problem' in endpoint ? endpoint.problem : null;
}

/** The request an alert makes: where it is posted and the body, or why it cannot be made. */
export function webhookRequest(
  url: string,
  format: WebhookFormat,
  snapshot: AlertSnapshot,
): { url: string; body: unknown } | { problem: string } {
  switch (format) {
    case 'slack':
      return { url, body: slackMessage(snapshot) };
    case 'discord':
      return { url, body: discordMessage(snapshot) };
    case 'teams':
      return { url, body: teamsMessage(snapshot) };
    case 'pagerduty': {
      const endpoint = pagerDutyEndpoint(url);
      if ('problem' in endpoint) return endpoint;
      return { url: endpoint.url, body: pagerDutyEvent(snapshot, endpoint.routingKey) };
    }
    case 'generic':
      return { url, body: genericPayload(snapshot) };
  }
}
