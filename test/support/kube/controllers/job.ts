import { JOB_TRACKING_FINALIZER } from '../builtins/batch';
import type { KubeEmulator } from '../emulator';
import { clone, rfc3339, type Obj } from '../types';
import { syncAfterJobEnded } from './cronjob';
import { recordEvent } from './events';
import { expireFinishedJobs } from './ttlAfterFinished';

const JOBS = 'batch/jobs';
const PODS = '/pods';
const COMPONENT = 'job-controller';

function condition(type: string, reason: string, message: string, t: string): Obj {
  return { type, status: 'True', lastProbeTime: t, lastTransitionTime: t, reason, message };
}

const hasCondition = (job: Obj, type: string) =>
  ((job.status?.conditions ?? []) as Obj[]).find((c) => c.type === type && c.status === 'True');

const isFinished = (job: Obj) => Boolean(hasCondition(job, 'Complete') ?? hasCondition(job, 'Failed'));

const isReady = (pod: Obj) =>
  ((pod.status?.conditions ?? []) as Obj[]).some((c) => c.type === 'Ready' && c.status === 'True');

/**
 * The Job controller for one Job until it has nothing left to do (its own status writes wake it
 * again, as the real one's informer does), shaped by 09-job-pod: it creates the pod (generateName,
 * template labels, controller ownerReference, job-tracking finalizer; Event SuccessfulCreate),
 * mirrors the pods into status (active, ready, succeeded, failed: a pod that ended is counted once,
 * then its job-tracking finalizer is released), and ends the Job in two writes as kcm 1.32 does:
 * first the criteria (SuccessCriteriaMet, or FailureTarget with BackoffLimitExceeded or
 * DeadlineExceeded, the pending pods deleted with Event SuccessfulDelete, every pod's finalizer
 * released), then the terminal condition (Complete or Failed) with its Event. A failed pod under
 * the backoff limit is replaced at once (the real controller's back-off delay, 10 s doubling, is
 * not emulated); under `restartPolicy: OnFailure` the containers' restarts count against the limit.
 * A Job it ends wakes its CronJob's controller, which may delete it at once (history limits:
 * syncAfterJobEnded), and the TTL-after-finished controller (a ttlSecondsAfterFinished already
 * passed, 0 included, deletes it: ttlAfterFinished.ts). Returns the Job as this sync left it,
 * deleted since or not.
 */
export function syncJob(emu: KubeEmulator, namespace: string, name: string): Obj {
  const before = emu.store.get(JOBS, namespace, name);
  for (let pass = 0; pass < 10 && syncJobOnce(emu, namespace, name); pass++);
  emu.afterWrite();
  const job = emu.store.get(JOBS, namespace, name)!;
  if (before && !isFinished(before) && isFinished(job)) {
    syncAfterJobEnded(emu, job);
    expireFinishedJobs(emu, namespace);
  }
  return job;
}

/** One sync; whether it wrote anything. */
function syncJobOnce(emu: KubeEmulator, namespace: string, name: string): boolean {
  const job = emu.store.get(JOBS, namespace, name);
  if (!job) throw new Error(`no Job ${namespace}/${name}`);
  if (isFinished(job)) return false;
  const t = rfc3339(emu.now());
  const status: Obj = { ...clone(job.status ?? {}) };
  if (job.spec.suspend) return suspend(emu, job, status, t);
  if (hasCondition(job, 'Suspended')) resume(emu, job, status, t);
  status.startTime = status.startTime ?? t;

  const criteria = hasCondition(job, 'SuccessCriteriaMet') ?? hasCondition(job, 'FailureTarget');
  if (criteria) {
    const complete = criteria.type === 'SuccessCriteriaMet';
    const terminal = complete ? 'Complete' : 'Failed';
    status.conditions = [...status.conditions, condition(terminal, criteria.reason, criteria.message, t)];
    if (complete) status.completionTime = t;
    writeStatus(emu, job, status);
    if (complete) recordEvent(emu, job, COMPONENT, 'Normal', 'Completed', 'Job completed');
    else recordEvent(emu, job, COMPONENT, 'Warning', criteria.reason, criteria.message);
    return true;
  }

  const pods = podsOf(emu, job);
  const ended = (p: Obj) => ['Succeeded', 'Failed'].includes(p.status?.phase);
  const active = pods.filter((p) => !ended(p));
  // A pod that ended is counted once: while it still carries the job-tracking finalizer (kcm goes
  // through status.uncountedTerminatedPods in between); then the finalizer goes.
  const uncounted = pods.filter((p) => ended(p) && isTracked(p));
  const succeeded = (status.succeeded ?? 0) + uncounted.filter((p) => p.status.phase === 'Succeeded').length;
  const failed = (status.failed ?? 0) + uncounted.filter((p) => p.status.phase === 'Failed').length;
  const deadline = job.spec.activeDeadlineSeconds;
  const overDeadline =
    deadline !== undefined && emu.now().getTime() - Date.parse(status.startTime) >= deadline * 1000;
  const backoffLimit = job.spec.backoffLimit ?? 6;
  const backoffExceeded = failed > backoffLimit || pastBackoffLimitOnFailure(job, active, backoffLimit);

  if (succeeded >= (job.spec.completions ?? 1)) {
    const msg = 'Reached expected number of succeeded pods';
    status.conditions = [condition('SuccessCriteriaMet', 'CompletionsReached', msg, t)];
    status.succeeded = succeeded;
    if (failed) status.failed = failed;
    endStatus(status);
    releasePods(emu, job, pods, []);
    writeStatus(emu, job, status);
    return true;
  }
  if (overDeadline || backoffExceeded) {
    const [reason, msg] = overDeadline
      ? ['DeadlineExceeded', 'Job was active longer than specified deadline']
      : ['BackoffLimitExceeded', 'Job has reached the specified backoff limit'];
    status.conditions = [condition('FailureTarget', reason, msg, t)];
    if (succeeded) status.succeeded = succeeded;
    status.failed = failed + active.length;
    endStatus(status);
    releasePods(emu, job, pods, active);
    writeStatus(emu, job, status);
    return true;
  }
  releasePods(emu, job, uncounted, []);
  if (active.length === 0) {
    active.push(createPod(emu, job));
  }
  status.active = active.length;
  if (succeeded) status.succeeded = succeeded;
  if (failed) status.failed = failed;
  status.terminating = 0;
  status.uncountedTerminatedPods = {};
  status.ready = active.filter(isReady).length;
  return writeStatus(emu, job, status);
}

/**
 * `spec.suspend`, as kcm 1.32 has it (beyond the recorded transcripts, which never suspend a Job):
 * a suspended Job has no pods (its active ones are deleted) and no start time, and says so with
 * the condition Suspended (JobSuspended) and the Event Suspended, once.
 */
function suspend(emu: KubeEmulator, job: Obj, status: Obj, t: string): boolean {
  if (hasCondition(job, 'Suspended')) return false;
  const pods = podsOf(emu, job);
  const active = pods.filter((p) => !['Succeeded', 'Failed'].includes(p.status?.phase));
  releasePods(emu, job, pods, active);
  delete status.startTime;
  delete status.active;
  status.ready = 0;
  status.terminating = 0;
  status.uncountedTerminatedPods = {};
  status.conditions = [
    ...((status.conditions ?? []) as Obj[]).filter((c) => c.type !== 'Suspended'),
    condition('Suspended', 'JobSuspended', 'Job suspended', t),
  ];
  writeStatus(emu, job, status);
  recordEvent(emu, job, COMPONENT, 'Normal', 'Suspended', 'Job suspended');
  return true;
}

/**
 * A suspended Job resumed: its Suspended condition turns False (JobResumed), the Event Resumed, and
 * its start time is now (so that `activeDeadlineSeconds` counts from the resumption).
 */
function resume(emu: KubeEmulator, job: Obj, status: Obj, t: string): void {
  status.conditions = ((status.conditions ?? []) as Obj[]).map((c) =>
    c.type === 'Suspended'
      ? { ...condition('Suspended', 'JobResumed', 'Job resumed', t), status: 'False' }
      : c,
  );
  status.startTime = t;
  recordEvent(emu, job, COMPONENT, 'Normal', 'Resumed', 'Job resumed');
}

const isTracked = (pod: Obj) =>
  ((pod.metadata.finalizers ?? []) as string[]).includes(JOB_TRACKING_FINALIZER);

/**
 * kcm's pastBackoffLimitOnFailure: under `restartPolicy: OnFailure` a failing container restarts
 * in its pod rather than failing it, and the restarts of the pods still Pending or Running count
 * against the backoff limit (with a limit of 0, one restart is too many).
 */
function pastBackoffLimitOnFailure(job: Obj, active: Obj[], backoffLimit: number): boolean {
  if (job.spec.template?.spec?.restartPolicy !== 'OnFailure') return false;
  const restarts = active
    .filter((p) => ['Pending', 'Running'].includes(p.status?.phase))
    .flatMap((p) => [...(p.status.initContainerStatuses ?? []), ...(p.status.containerStatuses ?? [])])
    .reduce((sum: number, c: Obj) => sum + (c.restartCount ?? 0), 0);
  return backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit;
}

/** A finished Job counts no active or ready pod. */
function endStatus(status: Obj): void {
  delete status.active;
  status.terminating = 0;
  status.uncountedTerminatedPods = {};
  status.ready = 0;
}

function podsOf(emu: KubeEmulator, job: Obj): Obj[] {
  return emu.store
    .list(PODS, job.metadata.namespace)
    .filter((p) => (p.metadata.ownerReferences ?? []).some((r: Obj) => r.uid === job.metadata.uid));
}

function createPod(emu: KubeEmulator, job: Obj): Obj {
  const { name, namespace, uid } = job.metadata;
  const tmpl = clone(job.spec.template);
  const pod = emu.seed(emu.typeByName('pods'), {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${name}-`,
      namespace,
      labels: tmpl.metadata?.labels,
      ownerReferences: [
        { apiVersion: 'batch/v1', kind: 'Job', name, uid, controller: true, blockOwnerDeletion: true },
      ],
      finalizers: [JOB_TRACKING_FINALIZER],
    },
    spec: tmpl.spec,
  });
  recordEvent(emu, job, COMPONENT, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
  return pod;
}

/** Deletes `doomed` (Event SuccessfulDelete each) and releases every pod's job-tracking finalizer. */
function releasePods(emu: KubeEmulator, job: Obj, pods: Obj[], doomed: Obj[]): void {
  for (const pod of doomed) {
    recordEvent(emu, job, COMPONENT, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
  }
  for (const pod of pods) {
    const fresh = emu.store.get(PODS, pod.metadata.namespace, pod.metadata.name);
    if (!fresh) continue;
    const deleting = doomed.some((d) => d.metadata.uid === fresh.metadata.uid);
    const rest = ((fresh.metadata.finalizers ?? []) as string[]).filter((f) => f !== JOB_TRACKING_FINALIZER);
    if (deleting && rest.length === 0) {
      emu.store.remove(PODS, fresh.metadata.namespace, fresh.metadata.name);
      continue;
    }
    if (rest.length === (fresh.metadata.finalizers ?? []).length) continue;
    if (rest.length) fresh.metadata.finalizers = rest;
    else delete fresh.metadata.finalizers;
    emu.store.put(PODS, fresh, 'MODIFIED');
  }
}

/** Writes the Job's status if it changed; whether it did. */
function writeStatus(emu: KubeEmulator, job: Obj, status: Obj): boolean {
  if (JSON.stringify(status) === JSON.stringify(job.status ?? {})) return false;
  const latest = emu.store.get(JOBS, job.metadata.namespace, job.metadata.name)!;
  latest.status = status;
  emu.store.put(JOBS, latest, 'MODIFIED');
  return true;
}
