import { parseRobfigStandard, robfigNextInZone } from '../../robfigStandardParser';
import { formatInZone } from '../builtins/cronSchedule';
import type { KubeEmulator } from '../emulator';
import { deleteObject } from '../handlers/delete';
import { clone, rfc3339, type Obj } from '../types';
import { recordEvent } from './events';

const COMPONENT = 'cronjob-controller';

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
  recordEvent(emu, cron, COMPONENT, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name}`);
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
 * One sync of the CronJob controller at the emulator's `now` (cronjob_controllerv2's sync), with its
 * Events: first what it does with the Jobs the CronJob controls (syncJobsOf: history limits,
 * `status.active`, `lastSuccessfulTime`). Then it finds the most recent fire time after
 * `lastScheduleTime` (or the CronJob's creation) that has come, and starts no Job when suspended,
 * when that time is older than `startingDeadlineSeconds` (MissSchedule), or under Forbid while a
 * Job is active (JobAlreadyActive, and `lastScheduleTime` stays where it was: once the active Job
 * ends, the next sync starts that most recent fire time late). Under Replace it first deletes the
 * active Jobs (deleteJob: Event SuccessfulDelete), then starts the new one. `@every` schedules
 * never fire.
 * Returns the Job it made.
 */
export function syncCronJob(emu: KubeEmulator, namespace: string, name: string): Obj | null {
  const cron = emu.store.get('batch/cronjobs', namespace, name);
  if (!cron) throw new Error(`no CronJob ${namespace}/${name}`);
  const now = emu.now();
  const event = (type: 'Normal' | 'Warning', reason: string, message: string) =>
    recordEvent(emu, cron, COMPONENT, type, reason, message);
  const { status, active } = syncJobsOf(emu, cron);
  if (cron.spec.suspend) return null;

  const due = mostRecentScheduleTime(cron, status, now);
  if (!due) return null;
  const deadline = cron.spec.startingDeadlineSeconds;
  if (deadline !== undefined && due.getTime() + deadline * 1000 < now.getTime()) {
    event('Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(due)}`);
    return null;
  }
  if (cron.spec.concurrencyPolicy === 'Forbid' && active.length > 0) {
    event(
      'Normal',
      'JobAlreadyActive',
      'Not starting job because prior execution is running and concurrency policy is Forbid',
    );
    return null;
  }
  if (cron.spec.concurrencyPolicy === 'Replace' && active.length > 0) {
    // kcm gets each by name and deletes it; syncJobsOf left only Jobs that exist.
    for (const ref of active) deleteJob(emu, cron, ref.name);
    writeActive(emu, cron, status, []);
  }
  return fireCronJob(emu, namespace, name, due);
}

/**
 * What the CronJob controller does at once when a Job it controls ends: the Job's update wakes a
 * sync of its CronJob (within about a second on a real cluster), which deletes the finished Jobs
 * past the history limits (with `failedJobsHistoryLimit: 0` the Job that just failed, with the
 * default 1 the older failed one) and takes the Job out of `status.active` (syncJobsOf). syncJob
 * calls it. The rest of that sync, firing what is due, is left to `syncCronJob`, which tests call
 * when they mean the CronJob controller to fire.
 */
export function syncAfterJobEnded(emu: KubeEmulator, job: Obj): void {
  const owner = ((job.metadata.ownerReferences ?? []) as Obj[]).find(
    (ref) => ref.controller && ref.kind === 'CronJob',
  );
  const cron = owner && emu.store.get('batch/cronjobs', job.metadata.namespace, owner.name);
  if (cron && cron.metadata.uid === owner.uid) syncJobsOf(emu, cron);
}

/**
 * The first part of a sync, on every Job the CronJob controls, as listed when it starts. The
 * finished Jobs past the history limits are deleted (cleanupFinishedJobs, which runs first). Then
 * a finished one in `status.active` leaves it (SawCompletedJob; a Complete one moves
 * `lastSuccessfulTime`, even one just deleted: the list is the one taken before), an unfinished one
 * it did not start draws a Warning UnexpectedJob every sync (08 #36: `kubectl create job --from`),
 * an active one that is gone leaves it (MissingJob). Writes the status if it changed; answers it.
 */
function syncJobsOf(emu: KubeEmulator, cron: Obj): { status: Obj; active: Obj[] } {
  const status: Obj = clone(cron.status ?? {});
  const event = (type: 'Normal' | 'Warning', reason: string, message: string) =>
    recordEvent(emu, cron, COMPONENT, type, reason, message);
  let active = (status.active ?? []) as Obj[];
  const children = jobsOf(emu, cron);
  for (const job of jobsPastHistoryLimits(cron.spec, children)) {
    deleteJob(emu, cron, job.metadata.name);
    active = active.filter((ref) => ref.uid !== job.metadata.uid);
  }
  for (const job of children) {
    const listed = active.some((ref) => ref.uid === job.metadata.uid);
    const ended = finishedCondition(job);
    if (!listed && !ended) {
      event(
        'Warning',
        'UnexpectedJob',
        `Saw a job that the controller did not create or forgot: ${job.metadata.name}`,
      );
    } else if (listed && ended) {
      active = active.filter((ref) => ref.uid !== job.metadata.uid);
      event('Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, condition: ${ended}`);
    }
    const completed = ended === 'Complete' ? job.status.completionTime : undefined;
    if (
      completed &&
      (!status.lastSuccessfulTime || Date.parse(completed) > Date.parse(status.lastSuccessfulTime))
    ) {
      status.lastSuccessfulTime = completed;
    }
  }
  for (const ref of active) {
    if (children.some((j) => j.metadata.uid === ref.uid)) continue;
    event('Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
    active = active.filter((other) => other !== ref);
  }
  writeActive(emu, cron, status, active);
  return { status, active };
}

/**
 * kcm's cleanupFinishedJobs: of the finished Jobs a CronJob controls (every Job with it as
 * controller owner: its scheduled ones, `kubectl create job --from`'s, and the catch-up, backfill
 * and run-now Jobs Crondeck creates alike), the Complete ones past `successfulJobsHistoryLimit` and
 * the Failed ones past `failedJobsHistoryLimit`, oldest first (removeOldestJobs: by
 * `status.startTime`, a Job without one last, the name breaking ties).
 */
function jobsPastHistoryLimits(spec: Obj, children: Obj[]): Obj[] {
  const oldest = (jobs: Obj[], limit: number | undefined): Obj[] =>
    limit === undefined || jobs.length <= limit
      ? []
      : [...jobs].sort(byJobStartTime).slice(0, jobs.length - limit);
  return [
    ...oldest(
      children.filter((job) => finishedCondition(job) === 'Complete'),
      spec.successfulJobsHistoryLimit,
    ),
    ...oldest(
      children.filter((job) => finishedCondition(job) === 'Failed'),
      spec.failedJobsHistoryLimit,
    ),
  ];
}

function byJobStartTime(a: Obj, b: Obj): number {
  const [x, y] = [a.status?.startTime, b.status?.startTime];
  if (x === undefined || y === undefined) {
    if (x !== y) return x === undefined ? 1 : -1;
  } else if (Date.parse(x) !== Date.parse(y)) {
    return Date.parse(x) - Date.parse(y);
  }
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

/** The Jobs a CronJob controls. */
function jobsOf(emu: KubeEmulator, cron: Obj): Obj[] {
  return emu
    .objects('batch/jobs', cron.metadata.namespace)
    .filter((j) =>
      (j.metadata.ownerReferences ?? []).some((r: Obj) => r.controller && r.uid === cron.metadata.uid),
    );
}

/**
 * kcm's deleteJob: DELETE with Background propagation (the garbage collector then deletes the
 * Job's pods), then Event SuccessfulDelete on the CronJob.
 */
function deleteJob(emu: KubeEmulator, cron: Obj, name: string): void {
  const stored = emu.store.get('batch/jobs', cron.metadata.namespace, name);
  if (!stored) return;
  deleteObject(emu.store, emu.typeByName('batch/jobs'), stored, 'Background', emu.now());
  emu.afterWrite();
  recordEvent(emu, cron, COMPONENT, 'Normal', 'SuccessfulDelete', `Deleted job ${name}`);
}

/** Writes the CronJob's status with `active` as the sync left it, if that changed anything. */
function writeActive(emu: KubeEmulator, cron: Obj, status: Obj, active: Obj[]): void {
  if (active.length) status.active = active;
  else delete status.active;
  const latest = emu.store.get('batch/cronjobs', cron.metadata.namespace, cron.metadata.name)!;
  if (JSON.stringify(status) === JSON.stringify(latest.status ?? {})) return;
  latest.status = status;
  emu.store.put('batch/cronjobs', latest, 'MODIFIED');
  emu.afterWrite();
}

/**
 * The most recent fire time after `lastScheduleTime` (or the CronJob's creation) that has come, as
 * the controller's mostRecentScheduleTime finds it: robfig/cron's Next walked in the CronJob's time
 * zone (so a wall time a DST fall-back repeats is found twice, kubernetes#121594, and one a
 * spring-forward skips never), looking back at most a day.
 */
function mostRecentScheduleTime(cron: Obj, status: Obj, now: Date): Date | null {
  const schedule = parseRobfigStandard(cron.spec.schedule);
  if (schedule.kind !== 'spec') return null;
  const timeZone = cron.spec.timeZone ?? 'UTC';
  const since = Date.parse(status.lastScheduleTime ?? cron.metadata.creationTimestamp);
  const earliest = new Date(Math.max(since, now.getTime() - MAX_MISSED_MINUTES * 60_000));
  let due: Date | null = null;
  for (
    let fire = robfigNextInZone(schedule, earliest, timeZone);
    fire && fire.getTime() <= now.getTime();
    fire = robfigNextInZone(schedule, fire, timeZone)
  ) {
    due = fire;
  }
  return due;
}

function finishedCondition(job: Obj): 'Complete' | 'Failed' | undefined {
  const c = ((job.status?.conditions ?? []) as Obj[]).find(
    (x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True',
  );
  return c?.type;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's time.RFC1123Z of a UTC time: `Mon, 02 Jan 2006 15:04:05 +0000`. */
function rfc1123z(t: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${DAYS[t.getUTCDay()]}, ${two(t.getUTCDate())} ${MONTHS[t.getUTCMonth()]} ${t.getUTCFullYear()} ${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())} +0000`;
}
