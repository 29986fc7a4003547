import type { V1Container, V1CronJob, V1Job, V1PodSpec } from '@kubernetes/client-node';
import { RUNNER_ENV } from '../../runner/runnerEnvironment';
import { kubeletLiteral } from '../kubeletLiteral';
import { boundedName } from './hashedName';

/** Kubernetes object names are at most 63 characters where they end up in labels (job-name). */
const MAX_JOB_NAME_LENGTH = 63;
/** On the Jobs made for a catch-up or a backfill: the slot they run, and why. */
export const SCHEDULED_TIME_ANNOTATION = 'crondeck.dev/scheduled-time';
export const TRIGGER_ANNOTATION = 'crondeck.dev/trigger';

/** The backfill a Job runs a slot of: the controller selects a backfill's Jobs by it. */
export const BACKFILL_LABEL = 'crondeck.dev/backfill-id';

/** One run the controller starts for a slot: a catch-up of a missed slot, or a slot of a backfill. */
export type SlotRun =
  { slot: Date; trigger: 'catchUp' } | { slot: Date; trigger: 'backfill'; backfillId: number };

/**
 * The Job that runs one slot from a CronJob's template, made as a run-now Job is (the template's
 * labels and annotations, the CronJob as controller owner without blockOwnerDeletion, so the
 * CronJob controller does not count it among its runs), and told its slot: the annotations
 * `crondeck.dev/scheduled-time` and `crondeck.dev/trigger` for the controller, the same in the
 * runner's environment (`CRONDECK_SCHEDULED_TIME`, `CRONDECK_TRIGGER`), which claims and reports
 * that slot and hands its time to the command.
 *
 * Its name, `<cronjob>-<minutes>-catchup` or `<cronjob>-<minutes>-backfill<id>`, is the same
 * whoever makes it, so a second creation of one run is refused (409) rather than run twice, and it
 * never ends in `-<digits>` as the CronJob controller's `<cronjob>-<minutes>` names do, nor in six
 * hex digits as a run-now Job's: the three never collide.
 */
export function slotRunJob(cronJob: V1CronJob, run: SlotRun): V1Job {
  const cronJobName = cronJob.metadata?.name ?? '';
  const template = cronJob.spec?.jobTemplate;
  const minutes = Math.floor(run.slot.getTime() / 60_000);
  const suffix = `-${minutes}-${run.trigger === 'catchUp' ? 'catchup' : `backfill${run.backfillId}`}`;
  const scheduledTime = run.slot.toISOString();
  const podSpec = template?.spec?.template?.spec;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `${boundedName(cronJobName, MAX_JOB_NAME_LENGTH - suffix.length)}${suffix}`,
      namespace: cronJob.metadata?.namespace,
      labels: {
        ...template?.metadata?.labels,
        ...(run.trigger === 'backfill' ? { [BACKFILL_LABEL]: String(run.backfillId) } : {}),
      },
      annotations: {
        ...template?.metadata?.annotations,
        [SCHEDULED_TIME_ANNOTATION]: scheduledTime,
        [TRIGGER_ANNOTATION]: run.trigger,
      },
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          name: cronJobName,
          uid: cronJob.metadata?.uid ?? '',
          controller: true,
        },
      ],
    },
    spec: template?.spec && {
      ...template.spec,
      template: {
        ...template.spec.template,
        spec: podSpec && withSlotInRunner(podSpec, scheduledTime, run.trigger),
      },
    },
  };
}

/** The pod spec with the slot added to the runner's environment (whichever container runs it). */
function withSlotInRunner(podSpec: V1PodSpec, scheduledTime: string, trigger: string): V1PodSpec {
  const told = (container: V1Container): V1Container =>
    (container.env ?? []).some((variable) => variable.name === RUNNER_ENV.command)
      ? {
          ...container,
          env: [
            ...(container.env ?? []).filter(
              (variable) =>
                variable.name !== RUNNER_ENV.scheduledTime && variable.name !== RUNNER_ENV.trigger,
            ),
            { name: RUNNER_ENV.scheduledTime, value: kubeletLiteral(scheduledTime) },
            { name: RUNNER_ENV.trigger, value: kubeletLiteral(trigger) },
          ],
        }
      : container;
  return {
    ...podSpec,
    containers: podSpec.containers.map(told),
    ...(podSpec.initContainers ? { initContainers: podSpec.initContainers.map(told) } : {}),
  };
}
