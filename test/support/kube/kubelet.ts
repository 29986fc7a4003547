import { ContainerLogWriter } from './containerLogs';
import type { KubeEmulator } from './emulator';
import { type LocalPod, startLocalPod } from './podProcesses';
import { bindToStandInNode, nextPodIP, STAND_IN_NODE } from './standInNode';
import type { Obj } from './types';

export interface RunPodOptions {
  /** The CrashLoopBackOff before a second and later restart (podProcesses.ts; upstream 10 s). */
  crashLoopBackOffMs?: number;
}

/**
 * A stand-in kubelet for one pod of the emulator, called by a test when it wants the pod to run:
 * the scheduler's binding to the stand-in Node first (standInNode.ts), then the containers run as
 * local processes (podProcesses.ts), with their environment and commands resolved and expanded as a
 * real kubelet does (`$(VAR)`, `$$`: expansion.ts), and the pod's status is written through the API
 * as the kubelet writes it: Pending, Running, then Succeeded or Failed with the exit codes. What the
 * containers write to stdout and stderr is kept as the runtime's log (containerLogs.ts) for
 * pods/log. A pod deleted while it runs has its containers killed, as the kubelet does; what the
 * kubelet would still write of a pod that is gone is dropped. It reads the pod and the Secrets and
 * ConfigMaps it names from the emulator's store; the e2e suite's kubelet player (test/e2e/) does
 * the same through the API only. Resolves with the pod's exit code (podProcesses.ts LocalPod); the
 * emulator's stop() kills what still runs.
 */
export async function runPod(
  emu: KubeEmulator,
  namespace: string,
  podName: string,
  options: RunPodOptions = {},
): Promise<number> {
  const found = emu.store.get('/pods', namespace, podName);
  if (!found) throw new Error(`no pod ${namespace}/${podName}`);
  await bindToStandInNode(emu, found);
  const pod = emu.store.get('/pods', namespace, podName) ?? found;
  const uid = pod.metadata.uid as string;
  let gone = false;
  /** The emulator stopped: its API is gone, and so is what the kubelet would write. */
  let halted = false;
  let deleting = false;
  let running: LocalPod | undefined;
  const onStop = {
    kill: () => {
      halted = true;
      running?.kill();
    },
  };
  emu.localPods.add(onStop);
  const stopWatching = emu.store.subscribe((e) => {
    if (e.resourceKey !== '/pods' || e.object.metadata.uid !== uid) return;
    if (e.type === 'DELETED') gone = true;
    if (e.type === 'DELETED' || e.object.metadata.deletionTimestamp) {
      deleting = true;
      running?.kill();
    }
  });
  try {
    running = await startLocalPod(pod, {
      sources: {
        pod,
        secret: (name) => emu.store.get('/secrets', namespace, name),
        configMap: (name) => emu.store.get('/configmaps', namespace, name),
      },
      writeStatus: async (status) => {
        if (!gone && !halted) await writeStatus(emu, pod, status, 'application/strategic-merge-patch+json');
      },
      // Within the tests' own timeouts: a pod that would wait forever fails them instead of hanging.
      deadlineMs: 40_000,
      now: () => emu.now(),
      logs: (_container, containerID) =>
        new ContainerLogWriter(emu.containerLogs.open(uid, containerID), () => emu.now()),
      addresses: { hostIP: STAND_IN_NODE.internalIP, podIP: nextPodIP() },
      crashLoopBackOffMs: options.crashLoopBackOffMs,
    });
    if (deleting || halted) running.kill();
    return await running.exitCode;
  } finally {
    emu.localPods.delete(onStop);
    stopWatching();
  }
}

/** Marks a pod failed without running anything (its image could not be pulled, say). */
export function failPodBeforeStart(emu: KubeEmulator, namespace: string, podName: string): Promise<void> {
  const pod = emu.store.get('/pods', namespace, podName)!;
  return writeStatus(emu, pod, { phase: 'Failed', reason: 'ErrImagePull' }, 'application/merge-patch+json');
}

async function writeStatus(emu: KubeEmulator, pod: Obj, status: Obj, contentType: string): Promise<void> {
  const { namespace, name } = pod.metadata;
  const response = await fetch(`${emu.url}/api/v1/namespaces/${namespace}/pods/${name}/status`, {
    method: 'PATCH',
    headers: { 'content-type': contentType, authorization: `Bearer ${emu.adminToken}` },
    body: JSON.stringify({ status }),
  });
  if (response.status === 404 && emu.store.get('/pods', namespace, name)?.metadata.uid !== pod.metadata.uid) {
    // Deleted meanwhile: the kubelet's status manager drops what it had for a pod that is gone.
    return;
  }
  if (!response.ok) throw new Error(`pod status refused: ${response.status} ${await response.text()}`);
}
