import { randomBytes } from 'node:crypto';
import type { V1CronJob, V1Job } from '@kubernetes/client-node';

/** Kubernetes object names are at most 63 characters where they end up in labels (job-name). */
const MAX_JOB_NAME_LENGTH = 63;

/**
 * A Job that runs a CronJob's template now, built as `kubectl create job NAME --from=cronjob/CJ`
 * builds it (transcript 08-cronjob): the template's labels and annotations, plus the annotation
 * `cronjob.kubernetes.io/instantiate: manual`, and the CronJob as controller owner (without
 * blockOwnerDeletion). The CronJob controller does not count it as one of its scheduled runs, so a
 * manual run never consumes a scheduled one.
 */
export function manualJobFromCronJob(cronJob: V1CronJob, suffix = randomBytes(3).toString('hex')): V1Job {
  const name = cronJob.metadata?.name ?? '';
  const template = cronJob.spec?.jobTemplate;
  // Cut where the CronJob's name is long; never on a dot, which may not stand before the dash.
  const base = name.slice(0, MAX_JOB_NAME_LENGTH - '-manual-'.length - suffix.length).replace(/[-.]+$/, '');
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `${base}-manual-${suffix}`,
      namespace: cronJob.metadata?.namespace,
      labels: { ...template?.metadata?.labels },
      annotations: { 'cronjob.kubernetes.io/instantiate': 'manual', ...template?.metadata?.annotations },
      ownerReferences: [
        { apiVersion: 'batch/v1', kind: 'CronJob', name, uid: cronJob.metadata?.uid ?? '', controller: true },
      ],
    },
    spec: template?.spec,
  };
}
