import { type Job, switchedOn } from '../../domain/job';
import { CRONDECK_API_VERSION } from '../../kube/resources/group';
import { crNameForJobName, JOB_NAME_ANNOTATION } from '../../kube/resources/names';
import type { ScheduledJob, ScheduledJobSpecInput } from '../../kube/resources/scheduledJob';
import { LABEL_JOB_ID } from '../../kube/labels';

/**
 * The part of a ScheduledJob's spec that the REST API manages: the job's own fields. What only a
 * manifest can say (image, env, resources, alert shortcuts...) is left as it is. Absent values are
 * null so that, sent as a merge patch, they remove what the resource had.
 */
function specOfJob(job: Job) {
  return {
    schedule: job.schedule,
    command: job.command,
    timeZone: job.timezone,
    // What people chose; a suspension by the alert policy is the controller's to apply, not the spec's.
    suspend: !switchedOn(job),
    timeout: job.timeout,
    retry: job.retry,
    description: job.description,
    tags: job.tags,
    lateAfterSeconds: job.lateAfterSeconds,
    catchUp: job.catchUp,
    allowDuplicateSlots: job.allowDuplicateSlots,
  };
}

/**
 * A new ScheduledJob for a job created through the REST API, in `namespace`. It carries the id of
 * the row the API inserted, which the controller adopts, so the job keeps that id; and, when the
 * job's name in its namespace (`localName`: the API name, less the `namespace.` the controller
 * qualifies it with outside the service's own namespace) is not a valid resource name, that name
 * in an annotation.
 */
export type ScheduledJobManifest = Omit<ScheduledJob, 'spec' | 'status'> & { spec: ScheduledJobSpecInput };

export function scheduledJobOfJob(job: Job, namespace: string, localName = job.name): ScheduledJobManifest {
  const name = crNameForJobName(localName);
  return {
    apiVersion: CRONDECK_API_VERSION,
    kind: 'ScheduledJob',
    metadata: {
      name,
      namespace,
      labels: { [LABEL_JOB_ID]: String(job.id) },
      ...(name === localName ? {} : { annotations: { [JOB_NAME_ANNOTATION]: localName } }),
    },
    spec: {
      schedule: job.schedule,
      command: job.command,
      suspend: !switchedOn(job),
      timeout: job.timeout,
      tags: job.tags,
      ...(job.timezone === null ? {} : { timeZone: job.timezone }),
      ...(job.retry === null ? {} : { retry: job.retry }),
      ...(job.description === null ? {} : { description: job.description }),
      lateAfterSeconds: job.lateAfterSeconds,
      allowDuplicateSlots: job.allowDuplicateSlots,
      ...(job.catchUp === null ? {} : { catchUp: job.catchUp }),
    },
  };
}

/**
 * The merge patch that brings an existing ScheduledJob in line with a job changed through the API
 * (`localName` as for `scheduledJobOfJob`).
 */
export function patchOfJob(job: Job, resourceName: string, localName = job.name): object {
  return {
    metadata: { annotations: { [JOB_NAME_ANNOTATION]: resourceName === localName ? null : localName } },
    spec: specOfJob(job),
  };
}
