import { CoreV1Api } from '@kubernetes/client-node';
import { KubeEmulator } from '../support/kube/emulator';
import { kubeConfigFor } from '../support/kube/kubeconfig';
import { runPod } from '../support/kube/kubelet';
import { markUnschedulable } from '../support/kube/schedulerFaults';
import { STAND_IN_NODE } from '../support/kube/standInNode';
import type { Obj } from '../support/kube/types';

/**
 * The Job and pod status transitions a Job's run goes through when the stand-in kubelet runs its
 * pod, against what 09-job-pod recorded of the real Job controller (SuccessCriteriaMet then
 * Complete; FailureTarget then Failed with BackoffLimitExceeded; the job-tracking finalizer released
 * once a pod is counted; the terminated container's exitCode, reason, startedAt and finishedAt in
 * whole seconds). Beyond the recording, and said where they are: the kubelet's Pending write
 * (ContainerCreating), a replacement pod per failure up to backoffLimit, restarts in the pod under
 * restartPolicy OnFailure, the scheduler's Unschedulable.
 */

const NS = 'runs';
const IMAGE = 'busybox:1.36';
const WHOLE_SECOND = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

async function until<T>(check: () => T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const conditionsOf = (job: Obj) =>
  ((job.status?.conditions ?? []) as Obj[]).map((c) => `${c.type}/${c.reason}`);

describe('Job and pod status transitions with the stand-in kubelet', () => {
  let emu: KubeEmulator;
  let core: CoreV1Api;
  beforeEach(async () => {
    emu = await KubeEmulator.start();
    core = kubeConfigFor(emu).makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
  });
  afterEach(() => emu.stop());

  const createJob = (name: string, script: string, spec: Obj = {}, podSpec: Obj = {}) =>
    emu.seed(emu.typeByName('batch/jobs'), {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, namespace: NS },
      spec: {
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', script] }],
            ...podSpec,
          },
        },
        ...spec,
      },
    });
  const podsOf = (job: string) =>
    emu.objects('pods', NS).filter((p) => p.metadata.labels?.['batch.kubernetes.io/job-name'] === job);
  const newestPod = (job: string) =>
    podsOf(job).find((p) => !['Succeeded', 'Failed'].includes(p.status?.phase))!;

  test('the kubelet binds, writes Pending (ContainerCreating), Running, Succeeded; the Job completes (09 #7–#11)', async () => {
    createJob('ok', 'echo hello');
    emu.syncJob(NS, 'ok');
    const pod = newestPod('ok');
    const seen: string[] = [];
    const stop = emu.store.subscribe((e) => {
      if (e.resourceKey !== '/pods' || e.object.metadata.uid !== pod.metadata.uid) return;
      const state = (e.object.status?.containerStatuses?.[0]?.state ?? {}) as Record<string, Obj>;
      const [kind, detail] = Object.entries(state)[0] ?? [];
      const reason = detail?.reason ? `:${detail.reason}` : '';
      seen.push(`${e.object.status.phase}${kind ? ` ${kind}${reason}` : ''}`);
    });
    expect(await runPod(emu, NS, pod.metadata.name)).toBe(0);
    stop();
    // Beyond 09 (the recorder went straight to Running): the binding, then the kubelet's first write.
    expect(seen).toEqual([
      'Pending',
      'Pending waiting:ContainerCreating',
      'Running running',
      'Succeeded terminated:Completed',
    ]);
    const done = emu.store.get('/pods', NS, pod.metadata.name)!;
    expect(done.spec.nodeName).toBe(STAND_IN_NODE.name);
    expect(done.status).toMatchObject({ hostIP: STAND_IN_NODE.internalIP, qosClass: 'BestEffort' });
    const terminated = done.status.containerStatuses[0].state.terminated;
    expect(terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(terminated.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    // metav1.Time: whole seconds, as 09 #9's answer shows them.
    for (const t of [terminated.startedAt, terminated.finishedAt, done.status.startTime]) {
      expect(t).toMatch(WHOLE_SECOND);
    }
    expect(done.metadata.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);

    const job = emu.syncJob(NS, 'ok');
    expect(conditionsOf(job)).toEqual([
      'SuccessCriteriaMet/CompletionsReached',
      'Complete/CompletionsReached',
    ]);
    expect(job.status).toMatchObject({ succeeded: 1, terminating: 0, ready: 0, uncountedTerminatedPods: {} });
    expect(emu.store.get('/pods', NS, pod.metadata.name)!.metadata.finalizers).toBeUndefined();
  });

  test('the API server keeps a pod status’s times in whole seconds, in UTC (metav1.Time)', async () => {
    await core.createNamespacedPod({
      namespace: NS,
      body: { metadata: { name: 'times' }, spec: { containers: [{ name: 'main', image: IMAGE }] } },
    });
    const answer = await fetch(`${emu.url}/api/v1/namespaces/${NS}/pods/times/status`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${emu.adminToken}`,
        'content-type': 'application/strategic-merge-patch+json',
      },
      body: JSON.stringify({
        status: {
          phase: 'Running',
          startTime: '2026-11-23T10:00:00.999Z',
          containerStatuses: [
            { name: 'main', image: IMAGE, state: { running: { startedAt: '2026-11-23T11:00:01.5+01:00' } } },
          ],
        },
      }),
    });
    const status = ((await answer.json()) as Obj).status;
    expect(status.startTime).toBe('2026-11-23T10:00:00Z');
    expect(status.containerStatuses[0].state.running.startedAt).toBe('2026-11-23T10:00:01Z');
  });

  test('a failed pod is counted and released at once, replaced up to backoffLimit, then the Job fails (09 #13–#18)', async () => {
    const job = createJob('retry', 'echo try; exit 3', { backoffLimit: 1 });
    emu.syncJob(NS, 'retry');
    const first = newestPod('retry');
    expect(await runPod(emu, NS, first.metadata.name)).toBe(3);
    const retried = emu.syncJob(NS, 'retry');
    expect(retried.status).toMatchObject({ active: 1, failed: 1 });
    // Counted: the finalizer goes now, not when the Job ends (kcm's trackJobStatusAndRemoveFinalizers).
    expect(emu.store.get('/pods', NS, first.metadata.name)!.metadata.finalizers).toBeUndefined();
    expect(await core.readNamespacedPodLog({ namespace: NS, name: first.metadata.name })).toBe('try\n');

    const second = newestPod('retry');
    expect(second.metadata.name).not.toBe(first.metadata.name);
    expect(await runPod(emu, NS, second.metadata.name)).toBe(3);
    const failed = emu.syncJob(NS, 'retry');
    expect(conditionsOf(failed)).toEqual([
      'FailureTarget/BackoffLimitExceeded',
      'Failed/BackoffLimitExceeded',
    ]);
    expect(failed.status).toMatchObject({ failed: 2, terminating: 0, ready: 0 });
    expect(failed.status.active).toBeUndefined();
    for (const pod of podsOf('retry')) {
      expect(pod.metadata.finalizers).toBeUndefined();
      expect(pod.status.containerStatuses[0].state.terminated).toMatchObject({
        exitCode: 3,
        reason: 'Error',
      });
    }
    const events = emu
      .objects('events', NS)
      .filter((e) => e.involvedObject.uid === job.metadata.uid)
      .map((e) => `${e.type} ${e.reason}`);
    expect(events).toEqual([
      'Normal SuccessfulCreate',
      'Normal SuccessfulCreate',
      'Warning BackoffLimitExceeded',
    ]);
  });

  test('restartPolicy OnFailure: restarts in the pod count against backoffLimit; the failed Job’s pod is deleted, its process killed', async () => {
    createJob('crashloop', 'echo attempt; exit 2', { backoffLimit: 1 }, { restartPolicy: 'OnFailure' });
    emu.syncJob(NS, 'crashloop');
    const pod = newestPod('crashloop');
    // Beyond the recordings: the kubelet restarts at once, then waits (here a minute) in CrashLoopBackOff.
    const run = runPod(emu, NS, pod.metadata.name, { crashLoopBackOffMs: 60_000 });
    const backingOff = await until(() => {
      const status = emu.store.get('/pods', NS, pod.metadata.name)?.status?.containerStatuses?.[0];
      return status?.state?.waiting?.reason === 'CrashLoopBackOff' && status;
    }, 'CrashLoopBackOff');
    expect(backingOff).toMatchObject({
      restartCount: 1,
      ready: false,
      lastState: { terminated: { exitCode: 2, reason: 'Error' } },
      state: {
        waiting: {
          message: `back-off 1m0s restarting failed container=main pod=${pod.metadata.name}_${NS}(${pod.metadata.uid})`,
        },
      },
    });
    expect(emu.store.get('/pods', NS, pod.metadata.name)!.status.phase).toBe('Running');
    expect(await core.readNamespacedPodLog({ namespace: NS, name: pod.metadata.name, previous: true })).toBe(
      'attempt\n',
    );

    const failed = emu.syncJob(NS, 'crashloop');
    expect(conditionsOf(failed)).toEqual([
      'FailureTarget/BackoffLimitExceeded',
      'Failed/BackoffLimitExceeded',
    ]);
    expect(failed.status.failed).toBe(1);
    expect(emu.store.get('/pods', NS, pod.metadata.name)).toBeUndefined();
    // The kubelet stops the deleted pod's containers: the run ends without waiting out the back-off.
    expect(await run).toBe(2);
  });

  test('a command the runtime cannot execute: terminated StartError, exit code 128, an empty log', async () => {
    emu.seed(emu.typeByName('batch/jobs'), {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'missing', namespace: NS },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [{ name: 'main', image: IMAGE, command: ['no-such-program-here'] }],
          },
        },
      },
    });
    emu.syncJob(NS, 'missing');
    const pod = newestPod('missing');
    expect(await runPod(emu, NS, pod.metadata.name)).toBe(128);
    const done = emu.store.get('/pods', NS, pod.metadata.name)!;
    expect(done.status.phase).toBe('Failed');
    // Beyond the recordings: containerd's StartError, with a zero start time.
    expect(done.status.containerStatuses[0].state.terminated).toMatchObject({
      exitCode: 128,
      reason: 'StartError',
      startedAt: '1970-01-01T00:00:00Z',
      message: expect.stringContaining('exec: "no-such-program-here": executable file not found in $PATH'),
    });
    expect(await core.readNamespacedPodLog({ namespace: NS, name: pod.metadata.name })).toBe('');
    expect(conditionsOf(emu.syncJob(NS, 'missing'))).toEqual([
      'FailureTarget/BackoffLimitExceeded',
      'Failed/BackoffLimitExceeded',
    ]);
  });

  test('the emulator’s stop ends what the stand-in kubelet still runs', async () => {
    createJob('forever', 'echo started; while true; do sleep 0.05; done');
    emu.syncJob(NS, 'forever');
    const pod = newestPod('forever');
    const run = runPod(emu, NS, pod.metadata.name);
    await until(
      () => emu.store.get('/pods', NS, pod.metadata.name)?.status?.phase === 'Running',
      'the pod running',
    );
    await emu.stop();
    // TERM, as the kubelet stops a container: 128 + 15.
    expect(await run).toBe(143);
  });

  test('an unschedulable pod stays Pending without a node; the Job ends at its deadline (09 #19–#21)', async () => {
    let now = Date.now();
    await emu.stop();
    emu = await KubeEmulator.start({ now: () => new Date(now) });
    core = kubeConfigFor(emu).makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
    createJob('nowhere', 'echo never', { activeDeadlineSeconds: 5 });
    emu.syncJob(NS, 'nowhere');
    const pod = newestPod('nowhere');
    // Beyond the recordings: the scheduler's verdict.
    await markUnschedulable(emu, NS, pod.metadata.name);
    const stuck = emu.store.get('/pods', NS, pod.metadata.name)!;
    expect(stuck.status.phase).toBe('Pending');
    expect(stuck.spec.nodeName).toBeUndefined();
    expect(stuck.status.conditions).toEqual([
      expect.objectContaining({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }),
    ]);
    now += 6000;
    const failed = emu.syncJob(NS, 'nowhere');
    expect(conditionsOf(failed)).toEqual(['FailureTarget/DeadlineExceeded', 'Failed/DeadlineExceeded']);
    expect(emu.store.get('/pods', NS, pod.metadata.name)).toBeUndefined();
  });
});
