import type { V1OwnerReference } from '@kubernetes/client-node';
import { CRONDECK_API_VERSION } from '../../kube/resources/group';
import type { ScheduledJob } from '../../kube/resources/scheduledJob';

/** Makes the ScheduledJob the controlling owner, so deleting it deletes what was made for it. */
export function scheduledJobOwnerReference(scheduledJob: Pick<ScheduledJob, 'metadata'>): V1OwnerReference {
  const { name, uid } = scheduledJob.metadata;
  if (!name || !uid) throw new Error('a ScheduledJob needs metadata.name and metadata.uid to own objects');
  return {
    apiVersion: CRONDECK_API_VERSION,
    kind: 'ScheduledJob',
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}
