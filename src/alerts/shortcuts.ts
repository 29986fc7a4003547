import { z } from 'zod';
import {
  type AlertConfig,
  emailAddressSchema,
  MAX_RECIPIENTS_PER_EMAIL,
  webhookUrlSchema,
} from '../domain/alertConfig';
import { alertPolicySchema, isEmptyPolicy } from '../domain/alertPolicy';
import type { DestinationEvent } from '../domain/alertEvents';
import { describeZodError } from '../domain/zodErrors';
import { shortcutUrlProblem } from './webhookChannels';

/**
 * The config-file shortcuts of spec section 6 and the events each one stands for, and the slot
 * ledger's `on_missed` (docs/slots.md).
 */
const WEBHOOK_SHORTCUTS: Record<string, DestinationEvent[]> = {
  on_failure: ['failed', 'timeout'],
  on_success: ['success'],
  on_complete: ['success', 'failed', 'timeout'],
  on_missed: ['missed'],
};
const EMAIL_SHORTCUTS: Record<string, DestinationEvent[]> = {
  on_failure_email: ['failed', 'timeout'],
  on_success_email: ['success'],
  on_complete_email: ['success', 'failed', 'timeout'],
  on_missed_email: ['missed'],
};

/** One address or a comma-separated list (a YAML list is accepted too). */
const addressListSchema = z
  .union([z.string(), z.array(z.string())], {
    error: 'must be an e-mail address or a comma-separated list of them',
  })
  .transform((value) =>
    (Array.isArray(value) ? value : value.split(','))
      .map((address) => address.trim())
      .filter((address) => address.length > 0),
  )
  .pipe(
    z
      .array(emailAddressSchema)
      .min(1, { error: 'must name at least one address' })
      .max(MAX_RECIPIENTS_PER_EMAIL, { error: `must have at most ${MAX_RECIPIENTS_PER_EMAIL} addresses` })
      .transform((addresses) => [...new Set(addresses)]),
  );

/** The key of a config-file entry that holds the job's alert policy (docs/alert-policy.md), beside the shortcuts. */
export const ALERT_POLICY_KEY = 'alert_policy';

/**
 * The alert configuration that a config-file entry's shortcuts declare, or null when it has none.
 * Each shortcut becomes a destination of its own, so webhook and e-mail shortcuts fire
 * independently; `alert_policy` is the job's policy, written as the API's `policy`. Throws an
 * error naming the key when a value is invalid.
 */
export function alertConfigFromShortcuts(entry: Record<string, unknown>): AlertConfig | null {
  const config: AlertConfig = { webhooks: [], emails: [] };
  let declared = false;
  for (const [key, events] of Object.entries(WEBHOOK_SHORTCUTS)) {
    if (entry[key] === undefined || entry[key] === null) continue;
    declared = true;
    const url = parseOrThrow(webhookUrlSchema, entry[key], key);
    const problem = shortcutUrlProblem(url);
    if (problem) throw new Error(`${key}: ${problem}`);
    config.webhooks.push({ url, events });
  }
  for (const [key, events] of Object.entries(EMAIL_SHORTCUTS)) {
    if (entry[key] === undefined || entry[key] === null) continue;
    declared = true;
    config.emails.push({ to: parseOrThrow(addressListSchema, entry[key], key), events });
  }
  const policy = entry[ALERT_POLICY_KEY];
  if (policy !== undefined && policy !== null) {
    const parsed = parseOrThrow(alertPolicySchema, policy, ALERT_POLICY_KEY);
    if (!isEmptyPolicy(parsed)) {
      declared = true;
      config.policy = parsed;
    }
  }
  return declared ? config : null;
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, key: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(describeZodError(result.error, key));
  return result.data;
}
