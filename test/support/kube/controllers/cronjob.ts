import { formatInZone } from '../builtins/cronSchedule';
import type { KubeEmulator } from '../emulator';
import { clone, rfc3339, type Obj } from '../types';

function jobFromTemplate(
  cron: Obj,
  name: string,
  annotations: Record<string, string>,
  blockOwnerDeletion: boolean,
): Obj {
  const tmpl = clone(cron.spec.jobTemplate ?? {});
  const meta = tmpl.metadata ?? {};
  const owner: Obj = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    name: cron.metadata.name,
    uid: cron.metadata.uid,
    controller: true,
  };
  if (blockOwnerDeletion) owner.blockOwnerDeletion = true;
  const job: Obj = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: cron.metadata.namespace, ownerReferences: [owner] },
    spec: tmpl.spec ?? {},
  };
  // Labels and annotations come from jobTemplate.metadata only (README "CronJob controller").
  if (meta.labels) job.metadata.labels = meta.labels;
  const allAnnotations = { ...annotations, ...(meta.annotations ?? {}) };
  if (Object.keys(allAnnotations).length) job.metadata.annotations = allAnnotations;
  return job;
}

/**
 * Plays the CronJob controller for one scheduled time (08-cronjob #16–#18): Job NAME-<minutes since
 * the epoch>, scheduled-timestamp annotation in the CronJob's time zone, controller ownerReference,
 * then status.active[] and lastScheduleTime on the CronJob.
 */
export function fireCronJob(emu: KubeEmulator, namespace: string, name: string, scheduledTime: Date): Obj {
  const cronType = emu.typeByName('batch/cronjobs');
  const cron = emu.store.get('batch/cronjobs', namespace, name);
  if (!cron) throw new Error(`no CronJob ${namespace}/${name}`);
  const minutes = Math.floor(scheduledTime.getTime() / 60000);
  const tz = cron.spec.timeZone ?? 'UTC';
  const job = jobFromTemplate(
    cron,
    `${name}-${minutes}`,
    { 'batch.kubernetes.io/cronjob-scheduled-timestamp': formatInZone(scheduledTime, tz) },
    true,
  );
  const created = emu.seed(emu.typeByName('batch/jobs'), job);
  const ref = {
    kind: 'Job',
    namespace,
    name: created.metadata.name,
    uid: created.metadata.uid,
    apiVersion: 'batch/v1',
    resourceVersion: created.metadata.resourceVersion,
  };
  const latest = emu.store.get('batch/cronjobs', namespace, name)!;
  latest.status = {
    ...latest.status,
    active: [...(latest.status?.active ?? []), ref],
    lastScheduleTime: rfc3339(scheduledTime),
  };
  emu.store.put('batch/cronjobs', latest, 'MODIFIED');
  void cronType;
  emu.afterWrite();
  return created;
}

/**
 * What `kubectl create job NAME --from=cronjob/CRON` posts (08 #30): the template's labels and
 * annotations plus `cronjob.kubernetes.io/instantiate: manual`, a controller ownerReference without
 * blockOwnerDeletion. The CronJob controller does not adopt it into status.active.
 */
export function createJobFromCronJob(
  emu: KubeEmulator,
  namespace: string,
  cronName: string,
  jobName: string,
): Obj {
  const cron = emu.store.get('batch/cronjobs', namespace, cronName);
  if (!cron) throw new Error(`no CronJob ${namespace}/${cronName}`);
  const job = jobFromTemplate(cron, jobName, { 'cronjob.kubernetes.io/instantiate': 'manual' }, false);
  return emu.seed(emu.typeByName('batch/jobs'), job);
}
