import type { RunSlot, RunTrigger } from '../domain/slots';

/** What a pod knows of its run's slot, from its environment (runnerEnvironment.ts). */
export interface RunSlotSources {
  /** Its Kubernetes Job's name (the downward API label `batch.kubernetes.io/job-name`). */
  kubeJobName?: string;
  /** The name of the CronJob whose template made the pod. */
  cronJobName?: string;
  /** The slot, given outright on the Jobs the controller creates (catch-up, backfill). */
  scheduledTime?: string;
  trigger?: RunTrigger;
}

/** The CronJob controller writes at most this many digits of minutes; the name is a label value. */
const MINUTES = /^[0-9]{1,12}$/;

/**
 * The slot a pod's run is for, or null for a run started by hand. A Job the controller created
 * for a catch-up or a backfill says its slot outright; a Job the CronJob controller made is named
 * `<cronjob>-<minutes since the epoch>` (the time it fired, which is the slot's or, at a DST
 * fall-back, a repeat of it that the service maps to the slot). A run-now Job
 * (`<cronjob>-manual-<suffix>`) and any other name have no slot.
 */
export function slotOfRun(sources: RunSlotSources): RunSlot | null {
  if (sources.scheduledTime) {
    return { scheduledAt: new Date(sources.scheduledTime), trigger: sources.trigger ?? 'schedule' };
  }
  const { kubeJobName, cronJobName } = sources;
  if (!kubeJobName || !cronJobName || !kubeJobName.startsWith(`${cronJobName}-`)) return null;
  const minutes = kubeJobName.slice(cronJobName.length + 1);
  if (!MINUTES.test(minutes)) return null;
  return { scheduledAt: new Date(Number(minutes) * 60_000), trigger: 'schedule' };
}
