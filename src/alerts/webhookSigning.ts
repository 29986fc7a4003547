import { createHmac } from 'node:crypto';
import { webhookSecretKey } from '../domain/alertConfig';

/**
 * The headers of a signed delivery, the Standard Webhooks way: `webhook-id` (the same on every
 * attempt of one alert, so a receiver can drop a repeat), `webhook-timestamp` (Unix seconds when
 * this attempt is sent, so a receiver can refuse an old one played again) and `webhook-signature`
 * (`v1,` + base64 of HMAC-SHA256 over `id.timestamp.body` under the secret's key bytes). The body
 * must be exactly the bytes sent.
 */
export function standardWebhookHeaders(
  secret: string,
  messageId: string,
  sentAt: Date,
  body: string,
): Record<string, string> {
  const key = webhookSecretKey(secret);
  // Checked when it was configured: only a hand-edited row can get here. Never quote the value.
  if (!key) throw new Error('the stored webhook secret is not a whsec_ key');
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  const signature = createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': messageId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
