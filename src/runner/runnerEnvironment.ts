/**
 * The environment through which the controller instructs `crondeck run` in a pod. The runner side
 * reads these names; the CronJob's pod template sets them (desiredCronJob).
 */
export const RUNNER_ENV = {
  /** URL the runner POSTs each attempt's result to. */
  reportUrl: 'CRONDECK_REPORT_URL',
  /** The job's id in the service (integer), and its name (the API's, which the command sees too). */
  jobId: 'CRONDECK_JOB_ID',
  jobName: 'CRONDECK_JOB_NAME',
  /** The shell command, run with `sh -c`. */
  command: 'CRONDECK_COMMAND',
  /** Seconds an attempt may run; 0 = no limit. */
  timeout: 'CRONDECK_TIMEOUT',
  /** Retries after a failed attempt (0 = one attempt only). */
  retryMaxAttempts: 'CRONDECK_RETRY_MAX_ATTEMPTS',
  /** Seconds before the first retry; doubled for each further one, at most 300. */
  retryBaseDelay: 'CRONDECK_RETRY_BASE_DELAY',
  /** The job's report token, from its key in the namespace's token Secret (never in the CronJob). */
  reportToken: 'CRONDECK_REPORT_TOKEN',
  /** The pod's uid and name (downward API): with the attempt, the idempotency key of a report. */
  podUid: 'CRONDECK_POD_UID',
  podName: 'CRONDECK_POD_NAME',
  /** The uid of the pod's Kubernetes Job (one run), from the label the Job controller sets. */
  runUid: 'CRONDECK_RUN_UID',
  /**
   * The run's Kubernetes Job name (downward API label `batch.kubernetes.io/job-name`) and the
   * CronJob's name: a Job the CronJob controller made is named `<cronjob>-<minutes since the
   * epoch>`, which names the run's slot (runSlot.ts).
   */
  kubeJobName: 'CRONDECK_KUBE_JOB_NAME',
  cronJobName: 'CRONDECK_CRONJOB_NAME',
  /**
   * Set on the Jobs the controller creates for a catch-up or a backfill: the slot the run is for
   * (ISO 8601 UTC, which the command sees under the same name) and why it runs (`catchUp`,
   * `backfill`).
   */
  scheduledTime: 'CRONDECK_SCHEDULED_TIME',
  trigger: 'CRONDECK_TRIGGER',
  /** Sidecar layout only: the shared directory of the instruction protocol (sidecarScript.ts). */
  superviseDir: 'CRONDECK_SUPERVISE_DIR',
} as const;
