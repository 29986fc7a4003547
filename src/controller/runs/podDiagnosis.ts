import type { V1Container, V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import type { FailureReason } from '../../domain/execution';

/**
 * Waiting reasons of a container that will not start without someone's help (the kubelet's
 * ContainerCreating and PodInitializing are normal steps, not problems).
 */
const STUCK_WAITING = new Set([
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);
/** Whether a diagnosis (diagnosePod) is of a container that will not start without someone's help. */
export function cannotStartAlone(reason: FailureReason): boolean {
  return STUCK_WAITING.has(reason.code);
}
const IMAGE_PROBLEMS = new Set(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'ErrImageNeverPull']);

/**
 * Why the pod of a run is not doing (or did not do) its work, as the pod's status says it and as a
 * real kubelet, scheduler and node lifecycle write it; null when nothing is wrong with it (it runs,
 * or its command ended on its own, whatever its exit code). In order of weight: a container
 * OOM-killed, the pod evicted or disrupted (its node lost, preempted), a container stuck before
 * it could start (its image, its configuration), the pod not scheduled.
 */
export function diagnosePod(pod: V1Pod): FailureReason | null {
  const status = pod.status ?? {};
  const containers: V1ContainerStatus[] = [
    ...(status.initContainerStatuses ?? []),
    ...(status.containerStatuses ?? []),
  ];

  // lastState too: a native sidecar that was OOM-killed has been restarted since.
  const oomKilled = containers.find(
    (c) => c.state?.terminated?.reason === 'OOMKilled' || c.lastState?.terminated?.reason === 'OOMKilled',
  );
  if (oomKilled) return outOfMemory(pod, oomKilled.name);

  if (status.reason === 'Evicted') {
    return { code: 'Evicted', message: status.message || 'the kubelet evicted the pod' };
  }
  const disruption = (status.conditions ?? []).find(
    (condition) => condition.type === 'DisruptionTarget' && condition.status === 'True',
  );
  if (disruption) return disrupted(disruption.reason, disruption.message || status.message, status.reason);
  if (status.reason === 'NodeLost') {
    return { code: 'NodeLost', message: status.message || 'the node running the pod stopped responding' };
  }

  for (const container of containers) {
    const waiting = container.state?.waiting;
    if (!waiting?.reason || !STUCK_WAITING.has(waiting.reason)) continue;
    const said = waiting.message ? `: ${waiting.message}` : '';
    const message = IMAGE_PROBLEMS.has(waiting.reason)
      ? `image "${container.image}" of container "${container.name}" could not be pulled${said}`
      : `container "${container.name}" could not be created${said}`;
    return { code: waiting.reason, message };
  }

  const scheduled = (status.conditions ?? []).find((condition) => condition.type === 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') {
    return { code: 'Unschedulable', message: scheduled.message || 'no node can take the pod' };
  }
  return null;
}

/**
 * What the run's pods say: the newest one's diagnosis; undefined when there is no pod to look at
 * (not created yet, or deleted, as the Job controller deletes a pending pod at the deadline).
 */
export function diagnosePods(pods: readonly V1Pod[]): FailureReason | null | undefined {
  if (pods.length === 0) return undefined;
  const newest = [...pods].sort((a, b) => created(b) - created(a))[0]!;
  return diagnosePod(newest);
}

/**
 * The container's memory limit from the pod spec. Kubernetes reports no peak usage in the pod's
 * status (only a metrics pipeline could), so none is claimed.
 */
function outOfMemory(pod: V1Pod, containerName: string): FailureReason {
  const spec: V1Container | undefined = [
    ...(pod.spec?.initContainers ?? []),
    ...(pod.spec?.containers ?? []),
  ].find((container) => container.name === containerName);
  const limit = spec?.resources?.limits?.memory;
  const unreported = 'Kubernetes does not report the peak usage';
  return {
    code: 'OOMKilled',
    message: limit
      ? `container "${containerName}" reached its memory limit of ${limit} and was killed by the kernel (${unreported})`
      : `container "${containerName}" was killed by the kernel for lack of memory: it has no memory limit, so the node ran out (${unreported})`,
  };
}

/** The DisruptionTarget condition's reasons (Kubernetes 1.26+), named for what happened. */
function disrupted(
  reason: string | undefined,
  message: string | undefined,
  podReason: string | undefined,
): FailureReason {
  switch (reason) {
    case 'DeletionByTaintManager':
    case 'DeletionByPodGC':
      return { code: 'NodeLost', message: message || 'the node running the pod went away' };
    case 'PreemptionByScheduler':
      return { code: 'Preempted', message: message || 'the scheduler preempted the pod' };
    case 'EvictionByEvictionAPI':
      return { code: 'Evicted', message: message || 'the pod was evicted (a node drain, say)' };
    default:
      // TerminationByKubelet: a graceful node shutdown (pod reason Terminated) among others.
      return {
        code: podReason === 'Terminated' ? 'NodeShutdown' : reason || 'Disrupted',
        message: message || 'the pod was stopped by the cluster',
      };
  }
}

function created(pod: V1Pod): number {
  const at = pod.metadata?.creationTimestamp;
  return at ? new Date(at).getTime() : 0;
}
