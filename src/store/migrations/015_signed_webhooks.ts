/**
 * Webhook channels (issue 21): signed generic webhooks and an explicit format per webhook.
 *
 * - `alert_configs.webhook_secrets`: the `whsec_` secrets of a job's webhooks, one per entry of
 *   `webhooks` in the same order (null for an unsigned one). A column of its own, so that the
 *   configuration as every reader gets it never holds a secret; only queueing an alert reads them.
 * - `alert_outbox.format`: the format the webhook's configuration names (null: from the URL).
 * - `alert_outbox.signing_secret`: the secret an alert is signed with, copied when it is queued so
 *   that it is signed even after its job is gone, and cleared once the alert is finished.
 */
export const signedWebhooksSchema = `
ALTER TABLE alert_configs ADD COLUMN webhook_secrets jsonb NOT NULL DEFAULT '[]';
ALTER TABLE alert_outbox ADD COLUMN format text
  CHECK (format IN ('generic', 'slack', 'discord', 'teams', 'pagerduty'));
ALTER TABLE alert_outbox ADD COLUMN signing_secret text;
`;
