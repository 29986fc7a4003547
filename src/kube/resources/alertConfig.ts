import { z } from 'zod';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { DESTINATION_EVENTS } from '../../domain/alertEvents';
import { alertPolicySchema } from '../../domain/alertPolicy';
import {
  alertEventsSchema,
  emailDestinationSchema,
  MAX_EMAIL_ENTRIES,
  MAX_WEBHOOKS,
  webhookFormatSchema,
  webhookUrlSchema,
} from '../../domain/alertConfig';
import {
  observedStatusFields,
  DNS1123_SUBDOMAIN_PATTERN,
  exactlyOneRule,
  secretKeySelectorSchema,
} from './kubernetesFields';
import { HTTP_URL_SHAPE_PATTERN } from './scheduledJob';

const eventsField = alertEventsSchema
  .describe(`Events that send an alert: ${DESTINATION_EVENTS.join(', ')}.`)
  .meta({ 'x-kubernetes-list-type': 'set', maxItems: DESTINATION_EVENTS.length });

const alertWebhookSchema = z
  .object({
    url: webhookUrlSchema
      .regex(HTTP_URL_SHAPE_PATTERN, { error: 'must be an http:// or https:// URL' })
      .optional()
      .describe('http:// or https:// URL that receives the alert.'),
    urlFrom: z
      .object({ secretKeyRef: secretKeySelectorSchema.describe('The Secret key that holds the URL.') })
      .optional()
      .describe('Read the URL from a Secret (a chat webhook URL is a credential).'),
    format: webhookFormatSchema
      .optional()
      .describe('generic, slack, discord, teams or pagerduty. Left out, the format follows from the URL.'),
    secretRef: secretKeySelectorSchema
      .optional()
      .describe(
        'Sign each delivery (Standard Webhooks) with the whsec_ secret in this Secret key. Generic JSON webhooks only.',
      ),
    events: eventsField,
  })
  .superRefine((value, ctx) => {
    if ((value.url === undefined) === (value.urlFrom === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'must set exactly one of url, urlFrom' });
    }
  })
  .describe('A webhook destination: exactly one of url and urlFrom.')
  .meta({ 'x-kubernetes-validations': [exactlyOneRule('url', 'urlFrom')] });

const alertEmailSchema = z
  .object({
    to: emailDestinationSchema.shape.to.describe('Recipient addresses.'),
    events: eventsField,
  })
  .describe('An e-mail destination.');

/** `spec` of an AlertConfig: alert destinations of one ScheduledJob in the same namespace. */
export const alertConfigSpecSchema = z
  .object({
    jobRef: z
      .object({
        name: z
          .string()
          .min(1)
          .max(253)
          .regex(DNS1123_SUBDOMAIN_PATTERN, {
            error: 'must be the name of a ScheduledJob (a DNS-1123 subdomain)',
          })
          .describe('metadata.name of the ScheduledJob.'),
      })
      .describe('The ScheduledJob, in the same namespace, whose runs are alerted.'),
    webhooks: z.array(alertWebhookSchema).max(MAX_WEBHOOKS).optional().describe('Webhook destinations.'),
    emails: z.array(alertEmailSchema).max(MAX_EMAIL_ENTRIES).optional().describe('E-mail destinations.'),
    policy: alertPolicySchema.optional(),
  })
  .describe('Alert destinations of one ScheduledJob.');

export const alertConfigStatusSchema = z
  .object({
    ...observedStatusFields('Standard conditions (Ready: the job exists and the destinations are usable).'),
  })
  .describe('Observed state, written by the controller.');

export type AlertConfigSpec = z.output<typeof alertConfigSpecSchema>;
type AlertConfigStatus = z.output<typeof alertConfigStatusSchema>;

export interface AlertConfigResource {
  apiVersion: string;
  kind: 'AlertConfig';
  metadata: V1ObjectMeta;
  spec: AlertConfigSpec;
  status?: AlertConfigStatus;
}
