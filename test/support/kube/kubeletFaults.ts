import type { KubeEmulator } from './emulator';
import { bindToStandInNode } from './standInNode';
import { rfc3339, type Obj } from './types';

/**
 * What a real kubelet writes to a pod's status when the pod goes wrong, for the stand-in kubelet
 * (kubelet.ts) to play: the shapes of 09-job-pod's pods/status writes (#15 Running, #16 Failed)
 * with the fields a kubelet sets in each case (api__v1.json: ContainerStateTerminated.reason,
 * ContainerStateWaiting, PodStatus.reason/message, the DisruptionTarget condition). No process
 * runs: each fault is what the node did to the pod's containers, written as the kubelet writes it.
 * The Job controller (controllers/job.ts) then ends the Job from these pods as the real one does.
 * Each pod is first bound to the stand-in kubelet's Node (standInNode.ts), as the scheduler would
 * have done, so that its pods/log answers are that kubelet's (`… is waiting to start: trying and
 * failing to pull image`; an empty log for a container that ran no process here).
 */

/**
 * The kernel killed the pod's main container for going over its memory limit. Under cgroup v2
 * (Kubernetes 1.28+) the whole container goes at once (memory.oom.group), the runner with the
 * command, so nothing reports: Running, then Failed with the container terminated OOMKilled, 137.
 */
export async function failPodOomKilled(emu: KubeEmulator, namespace: string, podName: string): Promise<void> {
  const pod = await podOf(emu, namespace, podName);
  const startedAt = rfc3339(emu.now());
  await writeStatus(emu, pod, running(pod, startedAt));
  await writeStatus(emu, pod, {
    phase: 'Failed',
    conditions: ended(),
    containerStatuses: mainContainers(pod).map((container, index) =>
      terminated(container, index, {
        exitCode: 137,
        reason: 'OOMKilled',
        startedAt,
        finishedAt: rfc3339(emu.now()),
      }),
    ),
  });
}

/**
 * The kubelet's eviction manager evicted the pod (the node ran short of memory): its containers
 * killed, the pod Failed with reason Evicted and the manager's message, and (Kubernetes 1.26+) the
 * DisruptionTarget condition TerminationByKubelet.
 */
export async function evictPod(
  emu: KubeEmulator,
  namespace: string,
  podName: string,
  message = 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 56Mi. Container run was using 812Mi, request is 0, has larger consumption of memory. ',
): Promise<void> {
  const pod = await podOf(emu, namespace, podName);
  const startedAt = rfc3339(emu.now());
  await writeStatus(emu, pod, running(pod, startedAt));
  const at = rfc3339(emu.now());
  await writeStatus(emu, pod, {
    phase: 'Failed',
    reason: 'Evicted',
    message,
    conditions: [
      {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'TerminationByKubelet',
        message,
        lastTransitionTime: at,
      },
      ...ended(),
    ],
    containerStatuses: mainContainers(pod).map((container, index) =>
      terminated(container, index, { exitCode: 137, reason: 'Error', startedAt, finishedAt: at }),
    ),
  });
}

/**
 * The image of the pod's main container cannot be pulled (`image`: its reference as the node
 * resolves it): ErrImagePull, then ImagePullBackOff between tries. The pod stays Pending (a native
 * sidecar, from another image, runs), and the Job goes on until its activeDeadlineSeconds.
 */
export async function failImagePull(emu: KubeEmulator, namespace: string, podName: string): Promise<void> {
  const pod = await podOf(emu, namespace, podName);
  const startedAt = rfc3339(emu.now());
  const waiting = (reason: string, message: (image: string) => string): Obj => ({
    phase: 'Pending',
    startTime: startedAt,
    conditions: [
      { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: startedAt },
      { type: 'Initialized', status: 'True', lastTransitionTime: startedAt },
      { type: 'Ready', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: startedAt },
      {
        type: 'ContainersReady',
        status: 'False',
        reason: 'ContainersNotReady',
        lastTransitionTime: startedAt,
      },
    ],
    initContainerStatuses: sidecars(pod).map((container, index) => ({
      name: container.name,
      image: container.image,
      imageID: `${container.image}@sha256:0000`,
      containerID: `fake://${container.name}-${index}`,
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt } },
    })),
    containerStatuses: mainContainers(pod).map((container) => ({
      name: container.name,
      image: container.image,
      imageID: '',
      ready: false,
      started: false,
      restartCount: 0,
      state: { waiting: { reason, message: message(container.image) } },
    })),
  });
  await writeStatus(
    emu,
    pod,
    waiting(
      'ErrImagePull',
      (image) =>
        `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": not found`,
    ),
  );
  await writeStatus(
    emu,
    pod,
    waiting('ImagePullBackOff', (image) => `Back-off pulling image "${image}"`),
  );
}

async function podOf(emu: KubeEmulator, namespace: string, podName: string): Promise<Obj> {
  const pod = emu.store.get('/pods', namespace, podName);
  if (!pod) throw new Error(`no pod ${namespace}/${podName}`);
  await bindToStandInNode(emu, pod);
  return emu.store.get('/pods', namespace, podName) ?? pod;
}

const mainContainers = (pod: Obj): Obj[] => pod.spec.containers as Obj[];
const sidecars = (pod: Obj): Obj[] =>
  ((pod.spec.initContainers ?? []) as Obj[]).filter((container) => container.restartPolicy === 'Always');

/** 09 #15: Running and Ready, every main container running. */
function running(pod: Obj, startedAt: string): Obj {
  return {
    phase: 'Running',
    startTime: startedAt,
    conditions: [
      { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: startedAt },
      { type: 'Initialized', status: 'True', lastTransitionTime: startedAt },
      { type: 'Ready', status: 'True', lastTransitionTime: startedAt },
      { type: 'ContainersReady', status: 'True', lastTransitionTime: startedAt },
    ],
    containerStatuses: mainContainers(pod).map((container, index) => ({
      name: container.name,
      image: container.image,
      imageID: `${container.image}@sha256:0000`,
      containerID: `fake://${container.name}-${index}`,
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt } },
    })),
  };
}

/** 09 #16: the conditions of a pod whose containers have all ended. */
function ended(): Obj[] {
  return [
    { type: 'PodReadyToStartContainers', status: 'False' },
    { type: 'Initialized', status: 'True' },
    { type: 'Ready', status: 'False', reason: 'PodCompleted' },
    { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' },
  ];
}

function terminated(container: Obj, index: number, state: Obj): Obj {
  const containerID = `fake://${container.name}-${index}`;
  return {
    name: container.name,
    image: container.image,
    imageID: `${container.image}@sha256:0000`,
    containerID,
    ready: false,
    started: false,
    restartCount: 0,
    state: { terminated: { ...state, containerID } },
  };
}

/** As the kubelet writes it: a strategic merge patch of pods/status (conditions merge by type). */
async function writeStatus(emu: KubeEmulator, pod: Obj, status: Obj): Promise<void> {
  const { namespace, name } = pod.metadata;
  const response = await fetch(`${emu.url}/api/v1/namespaces/${namespace}/pods/${name}/status`, {
    method: 'PATCH',
    headers: {
      'content-type': 'application/strategic-merge-patch+json',
      authorization: `Bearer ${emu.adminToken}`,
    },
    body: JSON.stringify({ status }),
  });
  if (!response.ok) throw new Error(`pod status refused: ${response.status} ${await response.text()}`);
}
