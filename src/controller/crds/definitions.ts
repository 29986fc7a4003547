import type { V1CustomResourceColumnDefinition } from '@kubernetes/client-node';
import type { z } from 'zod';
import { alertConfigSpecSchema, alertConfigStatusSchema } from '../../kube/resources/alertConfig';
import { cronJobWatchSpecSchema, cronJobWatchStatusSchema } from '../../kube/resources/cronJobWatch';
import { CRONDECK_GROUP, CRONDECK_VERSION } from '../../kube/resources/group';
import { scheduledJobSpecSchema, scheduledJobStatusSchema } from '../../kube/resources/scheduledJob';
import { type JsonSchemaNode, structuralSchemaOf } from './structuralSchema';

/** A CustomResourceDefinition as written to YAML (the wire form, not client-node's model). */
export interface CrdManifest {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    scope: 'Namespaced';
    names: {
      plural: string;
      singular: string;
      kind: string;
      listKind: string;
      shortNames: string[];
      categories: string[];
    };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: V1CustomResourceColumnDefinition[];
      schema: { openAPIV3Schema: JsonSchemaNode & { properties: Record<string, JsonSchemaNode> } };
    }[];
  };
}

interface ResourceDefinition {
  kind: string;
  plural: string;
  shortNames: string[];
  description: string;
  spec: z.ZodType;
  status: z.ZodType;
  columns: V1CustomResourceColumnDefinition[];
}

const AGE_COLUMN: V1CustomResourceColumnDefinition = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
};

const SCHEDULED_JOB: ResourceDefinition = {
  kind: 'ScheduledJob',
  plural: 'scheduledjobs',
  shortNames: ['sj', 'sjob'],
  description:
    'ScheduledJob runs a shell command on a cron schedule, in a pod, and records every run in Crondeck.',
  spec: scheduledJobSpecSchema,
  status: scheduledJobStatusSchema,
  columns: [
    { name: 'Schedule', type: 'string', jsonPath: '.spec.schedule', description: 'Cron schedule' },
    { name: 'Suspended', type: 'boolean', jsonPath: '.spec.suspend', description: 'No new runs are started' },
    {
      name: 'Last Status',
      type: 'string',
      jsonPath: '.status.lastStatus',
      description: 'Outcome of the last run',
    },
    { name: 'Last Run', type: 'date', jsonPath: '.status.lastRun', description: 'Start of the last run' },
    {
      name: 'Last Failure',
      type: 'string',
      jsonPath: '.status.lastFailureReason',
      description: 'Why the last failed run failed (OOMKilled, Evicted, ImagePullBackOff...)',
    },
    {
      name: 'Failed',
      type: 'date',
      jsonPath: '.status.lastFailureTime',
      description: 'When the last failed run ended',
      priority: 1,
    },
    // A "date" column shows an age, and kubectl prints <invalid> for a time in the future.
    { name: 'Next Run', type: 'string', jsonPath: '.status.nextRun', description: 'Next planned run (UTC)' },
    AGE_COLUMN,
  ],
};

const ALERT_CONFIG: ResourceDefinition = {
  kind: 'AlertConfig',
  plural: 'alertconfigs',
  shortNames: ['ac'],
  description: 'AlertConfig sends alerts about the runs of a ScheduledJob to webhooks and e-mail addresses.',
  spec: alertConfigSpecSchema,
  status: alertConfigStatusSchema,
  columns: [
    {
      name: 'Job',
      type: 'string',
      jsonPath: '.spec.jobRef.name',
      description: 'The ScheduledJob alerted about',
    },
    AGE_COLUMN,
  ],
};

const CRON_JOB_WATCH: ResourceDefinition = {
  kind: 'CronJobWatch',
  plural: 'cronjobwatches',
  shortNames: ['cjw'],
  description:
    'CronJobWatch records the runs of plain CronJobs of its namespace in Crondeck (by label selector and names), and alerts about them, without changing them.',
  spec: cronJobWatchSpecSchema,
  status: cronJobWatchStatusSchema,
  columns: [
    { name: 'Watching', type: 'integer', jsonPath: '.status.watching', description: 'CronJobs watched' },
    AGE_COLUMN,
  ],
};

function rootSchema(
  definition: ResourceDefinition,
): CrdManifest['spec']['versions'][number]['schema']['openAPIV3Schema'] {
  return {
    type: 'object',
    description: definition.description,
    required: ['spec'],
    properties: {
      apiVersion: {
        type: 'string',
        description: `APIVersion of this representation: ${CRONDECK_GROUP}/${CRONDECK_VERSION}.`,
      },
      kind: { type: 'string', description: `Kind of this representation: ${definition.kind}.` },
      // The API server describes and validates ObjectMeta itself: under the root `metadata` it
      // accepts only `type: object` (and constraints on name and generateName), and refuses a
      // CRD with anything else there, even a description. Crondeck adds no name constraint: its
      // rule (the job name, `namespace.` prefix included outside the home namespace, at most 200
      // characters) depends on the namespace and the job-name annotation, which a schema of
      // metadata.name cannot see; the controller reports such a name in the Ready condition.
      metadata: { type: 'object' },
      spec: structuralSchemaOf(definition.spec),
      status: structuralSchemaOf(definition.status),
    },
  };
}

function customResourceDefinition(definition: ResourceDefinition): CrdManifest {
  const singular = definition.kind.toLowerCase();
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${definition.plural}.${CRONDECK_GROUP}`,
      labels: { 'app.kubernetes.io/part-of': 'crondeck' },
    },
    spec: {
      group: CRONDECK_GROUP,
      scope: 'Namespaced',
      names: {
        plural: definition.plural,
        singular,
        kind: definition.kind,
        listKind: `${definition.kind}List`,
        shortNames: definition.shortNames,
        categories: ['crondeck'],
      },
      versions: [
        {
          name: CRONDECK_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: definition.columns,
          schema: { openAPIV3Schema: rootSchema(definition) },
        },
      ],
    },
  };
}

export function scheduledJobCrd(): CrdManifest {
  return customResourceDefinition(SCHEDULED_JOB);
}

export function alertConfigCrd(): CrdManifest {
  return customResourceDefinition(ALERT_CONFIG);
}

function cronJobWatchCrd(): CrdManifest {
  return customResourceDefinition(CRON_JOB_WATCH);
}

/** Every CRD of Crondeck, in the order they are written. */
export function crondeckCrds(): CrdManifest[] {
  return [scheduledJobCrd(), alertConfigCrd(), cronJobWatchCrd()];
}
