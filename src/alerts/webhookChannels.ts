import type { AlertConfig } from '../domain/alertConfig';
import { invalid } from '../domain/errors';
import { webhookFormatOf, webhookUrlProblem } from './formats/webhookFormat';

/**
 * What a webhook's format asks of its entry, checked when a configuration is written (API, jobs
 * file, AlertConfig) so that the caller hears of it rather than the log of a failed delivery: a
 * PagerDuty URL carries its routing key, and only a generic JSON webhook is signed (a chat
 * platform or PagerDuty would ignore the signature, and its sender would believe it checked).
 */
export function checkWebhookChannels(config: AlertConfig): void {
  config.webhooks.forEach((webhook, index) => {
    const format = webhookFormatOf(webhook.url, webhook.format);
    const problem = webhookUrlProblem(webhook.url, format);
    if (problem) throw invalid(`webhooks.${index}.url: ${problem}`);
    const signing = webhook.secret !== undefined ? 'secret' : webhook.signed === true ? 'signed' : null;
    if (signing && format !== 'generic') {
      throw invalid(
        `webhooks.${index}.${signing}: only generic JSON webhooks are signed; this one gets the ${format} format`,
      );
    }
  });
}

/** What is wrong with a webhook URL given with no more than its URL (a shortcut), or null. */
export function shortcutUrlProblem(url: string): string | null {
  return webhookUrlProblem(url, webhookFormatOf(url));
}
