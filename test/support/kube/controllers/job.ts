import { JOB_TRACKING_FINALIZER } from '../builtins/batch';
import type { KubeEmulator } from '../emulator';
import { clone, rfc3339, type Obj } from '../types';

function condition(type: string, reason: string, message: string, t: string): Obj {
  return { type, status: 'True', lastProbeTime: t, lastTransitionTime: t, reason, message };
}

/**
 * One sync of the Job controller for one Job (09-job-pod): creates its pod (generateName, template
 * labels, controller ownerReference, job-tracking finalizer), mirrors the pod's phase into the
 * Job's status and conditions (SuccessCriteriaMet+Complete, FailureTarget+Failed with
 * BackoffLimitExceeded or DeadlineExceeded), and releases the pod's finalizer once counted.
 */
export function syncJob(emu: KubeEmulator, namespace: string, name: string): Obj {
  const jobs = 'batch/jobs';
  const job = emu.store.get(jobs, namespace, name);
  if (!job) throw new Error(`no Job ${namespace}/${name}`);
  const now = emu.now();
  const t = rfc3339(now);
  const uid = job.metadata.uid as string;
  const podsOf = () =>
    emu.store
      .list('/pods', namespace)
      .filter((p) => (p.metadata.ownerReferences ?? []).some((r: Obj) => r.uid === uid));
  if (job.status?.conditions?.some((c: Obj) => c.type === 'Complete' || c.type === 'Failed')) return job;
  let pods = podsOf();
  if (pods.length === 0) {
    const tmpl = clone(job.spec.template);
    emu.seed(emu.typeByName('pods'), {
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
    pods = podsOf();
  }
  const pod = pods[0]!;
  const phase = pod.status?.phase;
  const status: Obj = { ...(job.status ?? {}) };
  status.startTime = status.startTime ?? t;
  const ready = (pod.status?.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True')
    ? 1
    : 0;
  const deadline = job.spec.activeDeadlineSeconds;
  const overDeadline =
    deadline !== undefined && now.getTime() - Date.parse(status.startTime) >= deadline * 1000;
  let outcome: 'Complete' | 'Failed' | undefined;
  if (phase === 'Succeeded') {
    outcome = 'Complete';
    const msg = 'Reached expected number of succeeded pods';
    status.conditions = [
      condition('SuccessCriteriaMet', 'CompletionsReached', msg, t),
      condition('Complete', 'CompletionsReached', msg, t),
    ];
    status.completionTime = t;
    status.succeeded = 1;
    delete status.active;
  } else if (phase === 'Failed' || overDeadline) {
    outcome = 'Failed';
    const [reason, msg] = overDeadline
      ? ['DeadlineExceeded', 'Job was active longer than specified deadline']
      : ['BackoffLimitExceeded', 'Job has reached the specified backoff limit'];
    status.conditions = [condition('FailureTarget', reason, msg, t), condition('Failed', reason, msg, t)];
    status.failed = 1;
    delete status.active;
  } else {
    status.active = 1;
    status.ready = ready;
  }
  status.terminating = 0;
  status.uncountedTerminatedPods = {};
  if (outcome) status.ready = 0;
  const latest = emu.store.get(jobs, namespace, name)!;
  latest.status = status;
  const stored = emu.store.put(jobs, latest, 'MODIFIED');
  if (outcome) {
    for (const p of podsOf()) {
      const fresh = emu.store.get('/pods', namespace, p.metadata.name)!;
      fresh.metadata.finalizers = (fresh.metadata.finalizers ?? []).filter(
        (f: string) => f !== JOB_TRACKING_FINALIZER,
      );
      if (fresh.metadata.finalizers.length === 0) delete fresh.metadata.finalizers;
      // A pending pod of a Job past its deadline is deleted (09 #21).
      if (overDeadline && fresh.status?.phase === 'Pending')
        emu.store.remove('/pods', namespace, fresh.metadata.name);
      else emu.store.put('/pods', fresh, 'MODIFIED');
    }
  }
  emu.afterWrite();
  return stored;
}
