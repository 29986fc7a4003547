import type { AlertConfig } from '../domain/alertConfig';
import { invalid } from '../domain/errors';

type Webhook = AlertConfig['webhooks'][number];

/** A stored webhook's URL and secret (null: unsigned), as the store hands them back. */
export interface StoredWebhookSecret {
  url: string;
  secret: string | null;
}

/**
 * The configuration a PUT asks for, with every signed webhook's secret in place. `secret` is
 * write-only, so a client that read the configuration sends a signed webhook back as
 * `signed: true`, which keeps the secret stored for its URL. Dropping the signature takes an
 * explicit `signed: false`: a stored signed URL sent back with neither `secret` nor `signed` is
 * refused, so that no client that does not know about signing (an old script, a form that rebuilds
 * `{ url, events }`) turns it off by accident.
 */
export function resolveWebhookSecrets(
  config: AlertConfig,
  stored: readonly StoredWebhookSecret[],
): AlertConfig {
  const storedByUrl = new Map<string, string>();
  for (const { url, secret } of stored) if (secret && !storedByUrl.has(url)) storedByUrl.set(url, secret);
  const webhooks = config.webhooks.map((webhook, index): Webhook => {
    const { secret, signed, ...destination } = webhook;
    if (secret !== undefined) return { ...destination, secret };
    const kept = storedByUrl.get(webhook.url);
    if (signed === true) {
      if (!kept) throw invalid(`webhooks.${index}.signed: no secret is stored for this URL; send "secret"`);
      return { ...destination, secret: kept };
    }
    if (signed === undefined && kept) {
      throw invalid(
        `webhooks.${index}: this webhook is signed; send "signed": true to keep its secret, ` +
          `"secret" to replace it, or "signed": false to stop signing`,
      );
    }
    return destination;
  });
  return { ...config, webhooks };
}

/** A configuration as it is shown: `signed: true` in place of each secret. */
export function publicAlertConfig(config: AlertConfig): AlertConfig {
  return {
    ...config,
    webhooks: config.webhooks.map(({ secret, signed: _signed, ...destination }) =>
      secret ? { ...destination, signed: true } : destination,
    ),
  };
}

/** The secret of each webhook in order, for telling whether stored secrets are the wanted ones. */
export function webhookSecretsOf(config: AlertConfig): StoredWebhookSecret[] {
  return config.webhooks.map(({ url, secret }) => ({ url, secret: secret ?? null }));
}
