import type { Clock } from '../domain/clock';
import type { OutboxAlert } from '../store/alerts';
import type { AlertSnapshot } from './alertSnapshot';
import type { DeliveryOutcome } from './deliveryOutcome';
import type { EmailSender } from './emailSender';
import { emailMessage } from './formats/email';
import { webhookFormatOf, webhookRequest } from './formats/webhookFormat';
import type { WebhookSender } from './webhookSender';
import { standardWebhookHeaders } from './webhookSigning';

/** Separator of the recipients in an e-mail row's destination (addresses contain no commas). */
export const RECIPIENT_SEPARATOR = ', ';

/** Turns an outbox row into a request: the format from the snapshot, the sender by channel. */
export function alertDelivery(senders: {
  webhooks: WebhookSender;
  email: EmailSender | null;
  /** Right-hand side of the Message-ID of alert e-mails. */
  messageIdDomain: string;
  /** When a signed delivery is sent (its `webhook-timestamp`). */
  clock: Clock;
}): (alert: OutboxAlert, stop: AbortSignal) => Promise<DeliveryOutcome> {
  return async (alert, stop) => {
    const snapshot = alert.snapshot as AlertSnapshot;
    if (alert.channel === 'webhook') {
      const format = webhookFormatOf(alert.destination, alert.format);
      const request = webhookRequest(alert.destination, format, snapshot);
      if ('problem' in request) return { status: 'rejected', error: request.problem };
      // The same key on every attempt lets a receiver drop a duplicate sent after a crash; a
      // signed delivery's webhook-id is that key too.
      const messageId = `crondeck-alert-${alert.id}`;
      const secret = format === 'generic' ? alert.signingSecret : null;
      const sign = secret
        ? (body: string) => standardWebhookHeaders(secret, messageId, senders.clock.now(), body)
        : undefined;
      return senders.webhooks.send(request.url, request.body, { 'idempotency-key': messageId }, stop, sign);
    }
    if (!senders.email) {
      // Queued while SMTP was configured, and the service restarted without it.
      return { status: 'rejected', error: 'e-mail is not configured: SERVICE_SMTP_HOST is not set' };
    }
    return senders.email.send(
      alert.destination.split(RECIPIENT_SEPARATOR),
      emailMessage(snapshot),
      `<crondeck-alert-${alert.id}${alert.executionId === null ? '' : `.${alert.executionId}`}@${senders.messageIdDomain}>`,
      stop,
    );
  };
}
