import type { V1Container, V1CronJob } from '@kubernetes/client-node';
import { quantityValue } from '../../../src/controller/desired/quantity';
import type { Loose } from '../../support/openapi/loose';

/**
 * A CronJob as a kube-apiserver v1.32 stores and returns it, from what the transcripts show
 * (08-cronjob, exchange 15: request vs response): object metadata, `status: {}`, `creationTimestamp:
 * null` in both templates, the pod defaults `terminationGracePeriodSeconds`, `dnsPolicy`,
 * `schedulerName`, `securityContext: {}`, the container defaults `terminationMessagePath`,
 * `terminationMessagePolicy`, `imagePullPolicy`, `resources: {}`, and quantities in canonical form.
 */
export function asStoredByServer(cronJob: V1CronJob): V1CronJob {
  const stored = structuredClone(cronJob) as V1CronJob & { status: object };
  stored.metadata = {
    ...stored.metadata,
    uid: '6f1c0b7e-0000-4000-8000-000000000001',
    resourceVersion: '4711',
    generation: 1,
    managedFields: [
      { manager: 'crondeck', operation: 'Update', apiVersion: 'batch/v1', fieldsType: 'FieldsV1' },
    ],
  };
  stored.status = {};
  const jobTemplate = stored.spec!.jobTemplate as {
    metadata: Record<string, unknown>;
    spec: { template: Loose };
  };
  jobTemplate.metadata = { creationTimestamp: null, ...jobTemplate.metadata };
  const template = jobTemplate.spec.template;
  template.metadata = { creationTimestamp: null, ...template.metadata };
  const pod = template.spec;
  pod.terminationGracePeriodSeconds ??= 30;
  pod.dnsPolicy ??= 'ClusterFirst';
  pod.securityContext ??= {};
  pod.schedulerName ??= 'default-scheduler';
  for (const container of [...(pod.initContainers ?? []), ...pod.containers] as V1Container[]) {
    container.terminationMessagePath ??= '/dev/termination-log';
    container.terminationMessagePolicy ??= 'File';
    container.imagePullPolicy ??= container.image!.endsWith(':latest') ? 'Always' : 'IfNotPresent';
    container.resources ??= {};
    for (const amounts of [container.resources.requests, container.resources.limits]) {
      for (const [name, value] of Object.entries(amounts ?? {})) amounts![name] = canonicalQuantity(value);
    }
  }
  return stored;
}

/** A few of the server's canonical forms: 0.5 → 500m, 1048576 → 1Mi, 2048Mi → 2Gi. */
function canonicalQuantity(quantity: string | number): string {
  const value = quantityValue(quantity);
  for (const [suffix, factor] of [
    ['Gi', 2 ** 30],
    ['Mi', 2 ** 20],
  ] as const) {
    if (value >= factor && value % factor === 0) return `${value / factor}${suffix}`;
  }
  return Number.isInteger(value) ? String(value) : `${Math.round(value * 1000)}m`;
}
