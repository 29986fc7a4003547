import type { AlertConfig } from '../domain/alertConfig';
import type { DestinationEvent } from '../domain/alertEvents';

export interface AlertDestinations {
  /** Webhook URLs, each once. */
  webhooks: string[];
  /** One e-mail per entry, each address once across all of them. */
  emails: string[][];
}

/**
 * Which destinations hear about an event: those whose `events` list contains it (spec section 6).
 * A URL or address named by two matching entries still gets one alert.
 */
export function destinationsFor(config: AlertConfig, event: DestinationEvent): AlertDestinations {
  const webhooks = new Set<string>();
  for (const webhook of config.webhooks) if (webhook.events.includes(event)) webhooks.add(webhook.url);

  const addressed = new Set<string>();
  const emails: string[][] = [];
  for (const email of config.emails) {
    if (!email.events.includes(event)) continue;
    // Mail systems treat addresses without regard to case in practice: one spelling per mailbox,
    // within an entry as across entries.
    const to = email.to.filter((address) => {
      const mailbox = address.toLowerCase();
      if (addressed.has(mailbox)) return false;
      addressed.add(mailbox);
      return true;
    });
    if (to.length > 0) emails.push(to);
  }
  return { webhooks: [...webhooks], emails };
}
