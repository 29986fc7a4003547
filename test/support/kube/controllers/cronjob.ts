import { randomBytes } from 'node:crypto';
import { formatInZone, matches, parseSchedule } from '../builtins/cronSchedule';
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

/** Wall-clock minutes the sync looks back at most (the real controller gives up past 100 misses). */
const MAX_MISSED_MINUTES = 60 * 24;

/**
 * One sync of the CronJob controller at the emulator's `now` (cronjob_controllerv2's syncCronJob):
 * drops finished Jobs from `status.active` (noting `lastSuccessfulTime`), then finds the most recent
 * fire time after `lastScheduleTime` (or the CronJob's creation) that has come. It starts no Job
 * when suspended, when that time is older than `startingDeadlineSeconds`, or under Forbid while a
 * Job is active (an Event JobAlreadyActive, and `lastScheduleTime` stays where it was: once the
 * active Job ends, the next sync starts that most recent fire time late). Returns the Job it made.
 */
export function syncCronJob(emu: KubeEmulator, namespace: string, name: string): Obj | null {
  const cron = emu.store.get('batch/cronjobs', namespace, name);
  if (!cron) throw new Error(`no CronJob ${namespace}/${name}`);
  const now = emu.now();
  const status: Obj = { ...(cron.status ?? {}) };
  const stillActive: Obj[] = [];
  for (const ref of (status.active ?? []) as Obj[]) {
    const job = emu.store.get('batch/jobs', namespace, ref.name);
    const ended = (job?.status?.conditions ?? []).find(
      (c: Obj) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
    );
    if (job && !ended) stillActive.push(ref);
    else if (ended?.type === 'Complete') status.lastSuccessfulTime = job!.status.completionTime;
  }
  if (stillActive.length) status.active = stillActive;
  else delete status.active;
  if (JSON.stringify(status) !== JSON.stringify(cron.status ?? {})) {
    cron.status = status;
    emu.store.put('batch/cronjobs', cron, 'MODIFIED');
    emu.afterWrite();
  }
  if (cron.spec.suspend) return null;

  const timeZone = cron.spec.timeZone ?? 'UTC';
  const schedule = parseSchedule(cron.spec.schedule);
  const since = Date.parse(status.lastScheduleTime ?? cron.metadata.creationTimestamp);
  let due: Date | null = null;
  const earliest = Math.max(since, now.getTime() - MAX_MISSED_MINUTES * 60_000);
  for (let t = Math.floor(now.getTime() / 60_000) * 60_000; t > earliest; t -= 60_000) {
    if (matches(schedule, new Date(t), timeZone)) {
      due = new Date(t);
      break;
    }
  }
  if (!due) return null;
  const deadline = cron.spec.startingDeadlineSeconds;
  if (deadline !== undefined && due.getTime() + deadline * 1000 < now.getTime()) return null;
  if (cron.spec.concurrencyPolicy === 'Forbid' && stillActive.length > 0) {
    controllerEvent(
      emu,
      cron,
      'JobAlreadyActive',
      'Not starting job because prior execution is running and concurrency policy is Forbid',
    );
    return null;
  }
  return fireCronJob(emu, namespace, name, due);
}

/** A core/v1 Event of the CronJob controller about `cron`, shaped as 08-cronjob #28 shows them. */
function controllerEvent(emu: KubeEmulator, cron: Obj, reason: string, message: string): void {
  const t = rfc3339(emu.now());
  emu.seed(emu.typeByName('/events'), {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${cron.metadata.name}.${randomBytes(8).toString('hex')}`,
      namespace: cron.metadata.namespace,
    },
    involvedObject: {
      kind: 'CronJob',
      namespace: cron.metadata.namespace,
      name: cron.metadata.name,
      uid: cron.metadata.uid,
      apiVersion: 'batch/v1',
      resourceVersion: cron.metadata.resourceVersion,
    },
    reason,
    message,
    source: { component: 'cronjob-controller' },
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    type: 'Normal',
    eventTime: null,
    reportingComponent: 'cronjob-controller',
    reportingInstance: '',
  });
  emu.afterWrite();
}
