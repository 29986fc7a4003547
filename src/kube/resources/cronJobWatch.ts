import { z } from 'zod';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { DEFAULT_LATE_AFTER_SECONDS, lateAfterSecondsSchema } from '../../domain/slots';
import { alertConfigSpecSchema } from './alertConfig';
import { scheduledJobCatchUpSchema } from './scheduledJob';
import { DNS1123_SUBDOMAIN_PATTERN, observedStatusFields } from './kubernetesFields';

/** At most this many explicit names per CronJobWatch; a longer list is a selector's job. */
const MAX_WATCHED_NAMES = 100;

const LABEL_KEY_PATTERN =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

const labelSelectorRequirementSchema = z
  .object({
    key: z
      .string()
      .min(1)
      .max(317)
      .regex(LABEL_KEY_PATTERN, { error: 'must be a label key' })
      .describe('Label key.'),
    operator: z
      .enum(['In', 'NotIn', 'Exists', 'DoesNotExist'])
      .describe('In, NotIn, Exists or DoesNotExist.'),
    values: z
      .array(z.string().max(63))
      .max(100)
      .optional()
      .describe('Values for In and NotIn (at least one); none for Exists and DoesNotExist.'),
  })
  .describe('A requirement on one label, as in a Deployment’s selector.')
  .meta({
    'x-kubernetes-validations': [
      {
        rule: "self.operator in ['In', 'NotIn'] ? has(self.values) && size(self.values) > 0 : !has(self.values) || size(self.values) == 0",
        message: 'values must be set for In and NotIn, and left out for Exists and DoesNotExist',
      },
    ],
  });

/** A Kubernetes LabelSelector (metav1.LabelSelector): every requirement must hold. */
const labelSelectorSchema = z
  .object({
    matchLabels: z
      .record(z.string(), z.string().max(63))
      .optional()
      .describe('Labels the CronJob must carry with exactly these values.'),
    matchExpressions: z
      .array(labelSelectorRequirementSchema)
      .max(20)
      .optional()
      .describe('Requirements on the CronJob’s labels.'),
  })
  .describe('CronJobs of this namespace whose labels match. An empty selector matches every CronJob.');

/**
 * `spec` of a CronJobWatch: which plain CronJobs of its namespace Crondeck records, and where their
 * alerts go. The alert fields are AlertConfig's, so one reads as the other.
 */
export const cronJobWatchSpecSchema = z
  .object({
    selector: labelSelectorSchema.optional(),
    names: z
      .array(
        z.string().min(1).max(253).regex(DNS1123_SUBDOMAIN_PATTERN, {
          error: 'must be the name of a CronJob (a DNS-1123 subdomain)',
        }),
      )
      .max(MAX_WATCHED_NAMES)
      .optional()
      .describe('CronJobs of this namespace watched by name, whatever their labels.')
      .meta({ 'x-kubernetes-list-type': 'set' }),
    webhooks: alertConfigSpecSchema.shape.webhooks,
    emails: alertConfigSpecSchema.shape.emails,
    policy: alertConfigSpecSchema.shape.policy,
    lateAfterSeconds: lateAfterSecondsSchema
      .default(DEFAULT_LATE_AFTER_SECONDS)
      .describe(
        'Grace of each slot of these CronJobs: a Job that starts later than this after its fire time is late, and a slot with none by then is missed (0-86400).',
      )
      .meta({ format: 'int32' }),
    allowBackfill: z
      .boolean()
      .default(false)
      .describe(
        'Whether Crondeck may backfill these CronJobs: create Jobs from their template for past fire times (POST /api/jobs/:id/backfill). Off by default: the CronJobs are someone else’s.',
      ),
    catchUp: scheduledJobCatchUpSchema
      .optional()
      .describe(
        'Which slots these CronJobs missed while nothing fired run afterwards, as a ScheduledJob’s catchUp says: Crondeck then creates Jobs from their template. None by default: the CronJobs are someone else’s.',
      ),
    history: z
      .object({
        onRecreate: z
          .enum(['keep', 'restart'])
          .default('keep')
          .describe(
            'A CronJob deleted and created again under the same name (a Helm upgrade does this): keep its history (keep), or start a new job without it (restart).',
          ),
      })
      .optional()
      .describe('What becomes of a watched CronJob’s history.'),
  })
  .describe('Plain CronJobs of this namespace whose runs Crondeck records, and their alert destinations.')
  .meta({
    'x-kubernetes-validations': [
      { rule: 'has(self.selector) || has(self.names)', message: 'set selector, names, or both' },
    ],
  });

export const cronJobWatchStatusSchema = z
  .object({
    ...observedStatusFields(
      'Standard conditions (Ready: the selection is applied and its destinations usable).',
    ),
    watching: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('How many CronJobs this selection watches.')
      .meta({ format: 'int32' }),
  })
  .describe('Observed state, written by the controller.');

type CronJobWatchSpec = z.output<typeof cronJobWatchSpecSchema>;
type CronJobWatchStatus = z.output<typeof cronJobWatchStatusSchema>;

export interface CronJobWatch {
  apiVersion: string;
  kind: 'CronJobWatch';
  metadata: V1ObjectMeta;
  spec: CronJobWatchSpec;
  status?: CronJobWatchStatus;
}
