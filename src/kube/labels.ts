import { boundedName, nameHash } from './resources/hashedName';

export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
/**
 * The job's row id, on everything made for it; on a ScheduledJob the REST API creates, the id of the
 * row it inserted first (the controller adopts that row).
 */
export const LABEL_JOB_ID = 'crondeck.dev/job-id';
const LABEL_SCHEDULED_JOB = 'crondeck.dev/scheduled-job';
export const MANAGED_BY_CRONDECK = 'crondeck';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const MAX_LABEL_VALUE_LENGTH = 63;

/**
 * A label value for a name (label values are at most 63 characters): the name itself when it
 * fits, else a prefix and the hash of the whole name. Select with the value, never parse it back.
 */
export function labelValueFor(name: string): string {
  if (name.length <= MAX_LABEL_VALUE_LENGTH && LABEL_VALUE.test(name)) return name;
  const bounded = boundedName(name, MAX_LABEL_VALUE_LENGTH);
  return LABEL_VALUE.test(bounded) ? bounded : `h-${nameHash(name)}`;
}

/** The labels of everything made for one ScheduledJob: the CronJob, its Jobs, their pods, the Secret. */
export function managedLabels(scheduledJobName: string, jobId: number): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGED_BY_CRONDECK,
    [LABEL_JOB_ID]: String(jobId),
    [LABEL_SCHEDULED_JOB]: labelValueFor(scheduledJobName),
  };
}
