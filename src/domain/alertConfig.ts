import { z } from 'zod';
import { ALERT_EVENTS, type AlertEvent } from './execution';
import { DESTINATION_EVENTS } from './alertEvents';
import { type AlertPolicy, alertPolicySchema, isEmptyPolicy } from './alertPolicy';
import { textSchema } from './text';
import { strictObjectError } from './zodErrors';

export const MAX_WEBHOOKS = 10;
export const MAX_EMAIL_ENTRIES = 10;
export const MAX_RECIPIENTS_PER_EMAIL = 50;
const MAX_WEBHOOK_URL_LENGTH = 2048;

// A control character in a URL would be silently dropped by the URL parser, and in an address it
// would end up in a mail header: both are refused outright.
const CONTROL_OR_SPACE = /[\s\p{Cc}]/u;

// textSchema: a lone surrogate becomes U+FFFD, which jsonb can hold (its \ud800 escape it cannot).
export const webhookUrlSchema = textSchema('is required and must be a string')
  .min(1, { error: 'must not be empty' })
  .max(MAX_WEBHOOK_URL_LENGTH, { error: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` })
  .refine((value) => !CONTROL_OR_SPACE.test(value), {
    error: 'must not contain spaces, line breaks or control characters',
    abort: true,
  })
  .refine(isHttpUrl, { error: 'must be an http:// or https:// URL' });

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * One address as the HTML standard defines a valid e-mail address: no display names, quotes,
 * commas or spaces, so nothing in it can change the meaning of a mail header. Single-label domains
 * (`ops@localhost`, an in-cluster relay) are allowed.
 */
export const emailAddressSchema = textSchema()
  .max(254, { error: 'must be at most 254 characters' })
  .refine((value) => !CONTROL_OR_SPACE.test(value), {
    error: 'must not contain spaces, line breaks or control characters',
    abort: true,
  })
  .pipe(
    z.email({ pattern: z.regexes.html5Email, error: 'must be an e-mail address such as ops@example.com' }),
  );

/**
 * A non-empty subset of the alert events (the spec's and the policy's, alertEvents.ts), kept in the
 * canonical order without repeats.
 */
export const alertEventsSchema = z
  .array(z.enum(DESTINATION_EVENTS, { error: `must be one of ${DESTINATION_EVENTS.join(', ')}` }), {
    error: `must be an array of events (${DESTINATION_EVENTS.join(', ')})`,
  })
  .min(1, { error: 'must name at least one event' })
  .transform((events) => DESTINATION_EVENTS.filter((event) => events.includes(event)));

/**
 * The formats a webhook can be sent in. Left out, the format follows from the URL (spec section 6);
 * named, it overrides that (a proxy in front of a chat platform, a PagerDuty-compatible endpoint).
 */
const WEBHOOK_FORMATS = ['generic', 'slack', 'discord', 'teams', 'pagerduty'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export const webhookFormatSchema = z.enum(WEBHOOK_FORMATS, {
  error: `must be one of ${WEBHOOK_FORMATS.join(', ')}`,
});

/** Standard Webhooks: a symmetric signing key of 24 to 64 bytes, written `whsec_` + base64. */
const WEBHOOK_SECRET_PREFIX = 'whsec_';
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The key bytes of a `whsec_` secret, or null when it is not one. */
export function webhookSecretKey(secret: string): Buffer | null {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return null;
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!BASE64.test(encoded)) return null;
  const key = Buffer.from(encoded, 'base64');
  // Buffer's decoder skips what it cannot read: only a value that encodes back to itself is base64.
  if (key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) return null;
  return key.length >= MIN_SECRET_BYTES && key.length <= MAX_SECRET_BYTES ? key : null;
}

/** The messages never quote the value: a secret must not reach a log or an error answer. */
const webhookSecretSchema = z
  .string({ error: 'must be a string' })
  .refine((value) => webhookSecretKey(value) !== null, {
    error: `must be ${WEBHOOK_SECRET_PREFIX} followed by the base64 of a ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} byte key`,
  });

/**
 * A webhook as a PUT sends it. `secret` is write-only: the configuration shows `signed: true`
 * instead, and `signed: true` sent back keeps the stored secret (see AlertConfigService).
 */
const webhookDestinationSchema = z
  .strictObject(
    {
      url: webhookUrlSchema,
      events: alertEventsSchema,
      format: webhookFormatSchema.optional(),
      secret: webhookSecretSchema.optional(),
      signed: z.boolean({ error: 'must be true or false' }).optional(),
    },
    { error: strictObjectError('must be an object { url, events }') },
  )
  .superRefine((webhook, ctx) => {
    if (webhook.secret !== undefined && webhook.signed === false) {
      ctx.addIssue({ code: 'custom', path: ['signed'], message: 'must not be false when a secret is given' });
    }
  });

export const emailDestinationSchema = z.strictObject(
  {
    to: z
      .array(emailAddressSchema, { error: 'must be an array of e-mail addresses' })
      .min(1, { error: 'must name at least one address' })
      .max(MAX_RECIPIENTS_PER_EMAIL, { error: `must have at most ${MAX_RECIPIENTS_PER_EMAIL} addresses` })
      .transform((addresses) => [...new Set(addresses)]),
    events: alertEventsSchema,
  },
  { error: strictObjectError('must be an object { to, events }') },
);

/**
 * The alert configuration of one job (spec section 2), as `PUT /api/jobs/:id/alerts` takes it. A
 * missing list means none: the PUT replaces the whole configuration.
 */
export const alertConfigSchema = z
  .strictObject(
    {
      webhooks: z
        .array(webhookDestinationSchema, { error: 'must be an array of { url, events }' })
        .max(MAX_WEBHOOKS, { error: `must have at most ${MAX_WEBHOOKS} entries` })
        .optional(),
      emails: z
        .array(emailDestinationSchema, { error: 'must be an array of { to, events }' })
        .max(MAX_EMAIL_ENTRIES, { error: `must have at most ${MAX_EMAIL_ENTRIES} entries` })
        .optional(),
      // Optional and additive: without it (or with an empty one) alerts go as the spec says.
      policy: alertPolicySchema.optional(),
    },
    { error: strictObjectError('request body must be a JSON object { "webhooks": [...], "emails": [...] }') },
  )
  .transform(({ webhooks, emails, policy }) => {
    const config: {
      webhooks: NonNullable<typeof webhooks>;
      emails: NonNullable<typeof emails>;
      policy?: AlertPolicy;
    } = { webhooks: webhooks ?? [], emails: emails ?? [] };
    if (policy && !isEmptyPolicy(policy)) config.policy = policy;
    return config;
  });

export type AlertConfig = z.output<typeof alertConfigSchema>;

export function isAlertEvent(status: string): status is AlertEvent {
  return (ALERT_EVENTS as readonly string[]).includes(status);
}
