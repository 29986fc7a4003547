import { alertConfigFromShortcuts } from '../../alerts/shortcuts';
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
    alert_policy: spec.alertPolicy,
  });
}

export interface SecretKeyRef {
  name: string;
  key: string;
}

/**
 * The domain alert configuration of an AlertConfig resource. Webhook URLs from Secrets are read
 * through `readSecretKey` (the controller's cache); a missing Secret or key, or a value that is
 * not a URL, throws an error naming the field, for the resource's Ready condition.
 */
export function alertConfigOfResource(
  spec: AlertConfigSpec,
  readSecretKey: (ref: SecretKeyRef) => string | undefined,
): AlertConfig {
  const webhooks = (spec.webhooks ?? []).map((webhook, index) => {
    if (webhook.url !== undefined) return { url: webhook.url, events: webhook.events };
    const ref = webhook.urlFrom!.secretKeyRef;
    const url = readSecretKey(ref)?.trim();
    if (url === undefined) {
      throw new Error(`webhooks.${index}.urlFrom: Secret ${ref.name} has no key ${ref.key}`);
    }
    return { url, events: webhook.events };
  });
  const parsed = alertConfigSchema.safeParse({ webhooks, emails: spec.emails ?? [], policy: spec.policy });
  if (!parsed.success) throw new Error(describeZodError(parsed.error));
  return parsed.data;
}
