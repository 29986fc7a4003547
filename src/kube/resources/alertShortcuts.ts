import { alertConfigFromShortcuts } from '../../alerts/shortcuts';
import { checkWebhookChannels } from '../../alerts/webhookChannels';
import { type AlertConfig, alertConfigSchema } from '../../domain/alertConfig';
import { describeZodError } from '../../domain/zodErrors';
import type { AlertConfigSpec } from './alertConfig';
import type { ScheduledJobSpec } from './scheduledJob';

/**
 * The alert configuration that a ScheduledJob's shortcut fields declare (onFailure...) and its
 * `alertPolicy`, or null when it has none: the same meaning as the config file's on_failure... (spec
 * section 6) and alert_policy.
 */
export function alertConfigOfShortcuts(spec: ScheduledJobSpec): AlertConfig | null {
  return alertConfigFromShortcuts({
    on_failure: spec.onFailure,
    on_success: spec.onSuccess,
    on_complete: spec.onComplete,
    on_failure_email: spec.onFailureEmail,
    on_success_email: spec.onSuccessEmail,
    on_complete_email: spec.onCompleteEmail,
    on_missed: spec.onMissed,
    on_missed_email: spec.onMissedEmail,
    alert_policy: spec.alertPolicy,
  });
}

export interface SecretKeyRef {
  name: string;
  key: string;
}

/**
 * The domain alert configuration of an AlertConfig resource. Webhook URLs and signing secrets from
 * Secrets are read through `readSecretKey`; a missing Secret or key, a value that is not a URL or
 * not a `whsec_` secret, or a webhook its format cannot use throws an error naming the field (never
 * quoting a secret), for the resource's Ready condition.
 */
export function alertConfigOfResource(
  spec: Pick<AlertConfigSpec, 'webhooks' | 'emails' | 'policy'>,
  readSecretKey: (ref: SecretKeyRef) => string | undefined,
): AlertConfig {
  const read = (ref: SecretKeyRef, field: string) => {
    const value = readSecretKey(ref)?.trim();
    if (value === undefined) throw new Error(`${field}: Secret ${ref.name} has no key ${ref.key}`);
    return value;
  };
  const webhooks = (spec.webhooks ?? []).map((webhook, index) => {
    const url = webhook.url ?? read(webhook.urlFrom!.secretKeyRef, `webhooks.${index}.urlFrom`);
    return {
      url,
      events: webhook.events,
      ...(webhook.format && { format: webhook.format }),
      ...(webhook.secretRef && { secret: read(webhook.secretRef, `webhooks.${index}.secretRef`) }),
    };
  });
  const parsed = alertConfigSchema.safeParse({ webhooks, emails: spec.emails ?? [], policy: spec.policy });
  if (!parsed.success) {
    // The secret came from the Secret, not from the resource: say where to look.
    throw new Error(describeZodError(parsed.error).replace(/^(webhooks\.\d+)\.secret:/, '$1.secretRef:'));
  }
  checkWebhookChannels(parsed.data);
  return parsed.data;
}
