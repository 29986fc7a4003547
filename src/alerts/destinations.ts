import type { AlertConfig, WebhookFormat } from '../domain/alertConfig';
import type { DestinationEvent } from '../domain/alertEvents';

/** A webhook an alert goes to, as its configuration says to send it. */
interface WebhookTarget {
  url: string;
  /** The format its entry names; absent: from the URL. */
  format?: WebhookFormat;
  /** The `whsec_` secret of a signed webhook. */
  secret?: string;
}

export interface AlertDestinations {
  /** Webhooks, each URL once. */
  webhooks: WebhookTarget[];
  /** One e-mail per entry, each address once across all of them. */
  emails: string[][];
}

/**
 * Which destinations hear about an event: those whose `events` list contains it (spec section 6).
 * A URL or address named by two matching entries still gets one alert, sent as the first of them
 * says (format, signature).
 */
export function destinationsFor(config: AlertConfig, event: DestinationEvent): AlertDestinations {
  const webhooks = new Map<string, WebhookTarget>();
  for (const { url, events, format, secret } of config.webhooks) {
    if (!events.includes(event) || webhooks.has(url)) continue;
    webhooks.set(url, { url, ...(format && { format }), ...(secret && { secret }) });
  }

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
  return { webhooks: [...webhooks.values()], emails };
}
