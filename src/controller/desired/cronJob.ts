import type { V1CronJob } from '@kubernetes/client-node';
import type { ScheduledJob } from '../../kube/resources/scheduledJob';
import { managedLabels } from '../../kube/labels';
import { cronJobNameFor } from '../../kube/cronJobName';
import { scheduledJobOwnerReference } from './ownerReference';
import { runnerPodSpec } from './podSpec';
import { runDeadlineSeconds } from './runDeadline';
import { cronJobScheduleOf } from './schedule';
import { ianaSpelling } from '../../domain/timezone';

/** How long a finished Job stays for the controller to record it and for `kubectl logs`. */
const DEFAULT_TTL_SECONDS_AFTER_FINISHED = 86_400;
const DEFAULT_TIME_ZONE = 'Etc/UTC';

export interface CronJobContext {
  /** The job's id and name in the service. */
  jobId: number;
  jobName: string;
  /** The Crondeck image (it has `crondeck run`). */
  image: string;
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  /** Secrets the pods pull their images with (the chart's `imagePullSecrets`). */
  imagePullSecrets?: string[];
  /** Where pods report attempts, e.g. http://crondeck.crondeck-system.svc:7433/api/report. */
  reportUrl: string;
  /** The scheduler is paused: every CronJob is suspended. */
  paused: boolean;
  /** The job's alert policy suspended it after failing runs (the user's `spec.suspend` stays as written). */
  suspended?: boolean;
  /** Time zone of a job without spec.timeZone (SERVICE_TIMEZONE). Default Etc/UTC. */
  defaultTimeZone?: string;
  runAsUser?: number;
  runAsGroup?: number;
  ttlSecondsAfterFinished?: number;
}

/** The CronJob that runs a ScheduledJob (pure: the same inputs give the same object). */
export function desiredCronJob(scheduledJob: ScheduledJob, context: CronJobContext): V1CronJob {
  const { metadata, spec } = scheduledJob;
  const name = metadata.name ?? '';
  const labels = managedLabels(name, context.jobId);
  const activeDeadlineSeconds = runDeadlineSeconds(spec.timeout, spec.retry);
  const cronJobName = cronJobNameFor(name);
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      name: cronJobName,
      namespace: metadata.namespace,
      labels,
      ownerReferences: [scheduledJobOwnerReference(scheduledJob)],
    },
    spec: {
      schedule: cronJobScheduleOf(spec.schedule),
      timeZone: ianaSpelling(spec.timeZone ?? context.defaultTimeZone ?? DEFAULT_TIME_ZONE),
      suspend: spec.suspend || context.paused || (context.suspended ?? false),
      concurrencyPolicy: spec.concurrencyPolicy ?? 'Forbid',
      ...(spec.startingDeadlineSeconds !== undefined
        ? { startingDeadlineSeconds: spec.startingDeadlineSeconds }
        : {}),
      successfulJobsHistoryLimit: spec.successfulJobsHistoryLimit,
      failedJobsHistoryLimit: spec.failedJobsHistoryLimit,
      jobTemplate: {
        metadata: { labels: { ...labels } },
        spec: {
          // Retries happen inside the pod (the runner's backoff); a failed pod is a finished run.
          backoffLimit: 0,
          ...(activeDeadlineSeconds !== undefined ? { activeDeadlineSeconds } : {}),
          ttlSecondsAfterFinished: context.ttlSecondsAfterFinished ?? DEFAULT_TTL_SECONDS_AFTER_FINISHED,
          template: {
            metadata: { labels: { ...labels } },
            spec: runnerPodSpec({
              spec,
              jobId: context.jobId,
              jobName: context.jobName,
              cronJobName,
              image: context.image,
              imagePullPolicy: context.imagePullPolicy,
              imagePullSecrets: context.imagePullSecrets,
              reportUrl: context.reportUrl,
              runAsUser: context.runAsUser,
              runAsGroup: context.runAsGroup,
            }),
          },
        },
      },
    },
  };
}
