import type { V1Secret } from '@kubernetes/client-node';
import type { ScheduledJob } from '../resources/scheduledJob';
import { LABEL_MANAGED_BY, LABEL_SCHEDULED_JOB, labelValueFor, MANAGED_BY_CRONDECK } from './labels';
import { reportSecretNameFor } from './names';
import { scheduledJobOwnerReference } from './ownerReference';
import { REPORT_TOKEN_KEY } from '../../runner/runnerEnvironment';

/**
 * The Secret that hands the job's report token to its pods (env CRONDECK_REPORT_TOKEN), owned by
 * the ScheduledJob so it goes with it. `data` rather than `stringData`: it is what the server
 * returns, so a comparison with the stored Secret is direct.
 */
export function desiredReportSecret(scheduledJob: ScheduledJob, token: string): V1Secret {
  const name = scheduledJob.metadata.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: reportSecretNameFor(name),
      namespace: scheduledJob.metadata.namespace,
      labels: { [LABEL_MANAGED_BY]: MANAGED_BY_CRONDECK, [LABEL_SCHEDULED_JOB]: labelValueFor(name) },
      ownerReferences: [scheduledJobOwnerReference(scheduledJob)],
    },
    type: 'Opaque',
    data: { [REPORT_TOKEN_KEY]: Buffer.from(token, 'utf8').toString('base64') },
  };
}
