import { JOB_TRACKING_FINALIZER } from '../builtins/batch';
import type { KubeEmulator } from '../emulator';
import { clone, rfc3339, type Obj } from '../types';
import { syncAfterJobEnded } from './cronjob';
import { recordEvent } from './events';

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
 * mirrors the pods into status (active, ready), and ends the Job in two writes as kcm 1.32 does:
 * first the criteria (SuccessCriteriaMet, or FailureTarget with BackoffLimitExceeded or
 * DeadlineExceeded, the pending pods deleted with Event SuccessfulDelete, every pod's finalizer
 * released), then the terminal condition (Complete or Failed) with its Event. A failed pod under
 * the backoff limit is replaced at once (the real controller's back-off delay is not emulated).
 * A Job it ends wakes its CronJob's controller, which may delete it at once (history limits:
 * syncAfterJobEnded). Returns the Job as this sync left it, deleted since or not.
 */
export function syncJob(emu: KubeEmulator, namespace: string, name: string): Obj {
  const before = emu.store.get(JOBS, namespace, name);
  for (let pass = 0; pass < 10 && syncJobOnce(emu, namespace, name); pass++);
  emu.afterWrite();
  const job = emu.store.get(JOBS, namespace, name)!;
  if (before && !isFinished(before) && isFinished(job)) syncAfterJobEnded(emu, job);
  return job;
}

/** One sync; whether it wrote anything. */
function syncJobOnce(emu: KubeEmulator, namespace: string, name: string): boolean {
  const job = emu.store.get(JOBS, namespace, name);
  if (!job) throw new Error(`no Job ${namespace}/${name}`);
  if (isFinished(job)) return false;
  const t = rfc3339(emu.now());
  const status: Obj = { ...clone(job.status ?? {}) };
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
  const succeeded = pods.filter((p) => p.status?.phase === 'Succeeded');
  const failed = pods.filter((p) => p.status?.phase === 'Failed');
  const active = pods.filter((p) => !['Succeeded', 'Failed'].includes(p.status?.phase));
  const deadline = job.spec.activeDeadlineSeconds;
  const overDeadline =
    deadline !== undefined && emu.now().getTime() - Date.parse(status.startTime) >= deadline * 1000;
  const backoffExceeded = failed.length > (job.spec.backoffLimit ?? 6);

  if (succeeded.length >= (job.spec.completions ?? 1)) {
    const msg = 'Reached expected number of succeeded pods';
    status.conditions = [condition('SuccessCriteriaMet', 'CompletionsReached', msg, t)];
    status.succeeded = succeeded.length;
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
    status.failed = failed.length + active.length;
    endStatus(status);
    releasePods(emu, job, pods, active);
    writeStatus(emu, job, status);
    return true;
  }
  if (active.length === 0) {
    active.push(createPod(emu, job));
  }
  status.active = active.length;
  if (failed.length) status.failed = failed.length;
  status.terminating = 0;
  status.uncountedTerminatedPods = {};
  status.ready = active.filter(isReady).length;
  return writeStatus(emu, job, status);
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
