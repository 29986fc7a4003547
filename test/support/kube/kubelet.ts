import type { KubeEmulator } from './emulator';
import { startLocalPod } from './podProcesses';
import type { Obj } from './types';

/**
 * A stand-in kubelet for one pod of the emulator, called by a test when it wants the pod to run:
 * the containers run as local processes (podProcesses.ts), with their environment and commands
 * resolved and expanded as a real kubelet does (`$(VAR)`, `$$`: expansion.ts), and the pod's status
 * is written through the API as the kubelet writes it: Running, then Succeeded or Failed with the
 * exit code. It reads the pod and the Secrets and ConfigMaps it names from the emulator's store;
 * the e2e suite's kubelet player (test/e2e/) does the same through the API only.
 */
export async function runPod(emu: KubeEmulator, namespace: string, podName: string): Promise<number> {
  const pod = emu.store.get('/pods', namespace, podName);
  if (!pod) throw new Error(`no pod ${namespace}/${podName}`);
  const running = await startLocalPod(pod, {
    sources: {
      pod,
      secret: (name) => emu.store.get('/secrets', namespace, name),
      configMap: (name) => emu.store.get('/configmaps', namespace, name),
    },
    writeStatus: (status) => writeStatus(emu, pod, status, 'application/strategic-merge-patch+json'),
    // Within the tests' own timeouts: a pod that would wait forever fails them instead of hanging.
    deadlineMs: 40_000,
  });
  return running.exitCode;
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
  if (!response.ok) throw new Error(`pod status refused: ${response.status} ${await response.text()}`);
}
