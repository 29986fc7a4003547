import type { KubeEmulator } from './emulator';
import { rfc3339, type Obj } from './types';

/**
 * The Node the stand-in kubelet (kubelet.ts, kubeletFaults.ts) stands for, and the scheduler's part
 * for the pods it runs. A real kubelet registers its Node and reports it Ready (08-cronjob #20, #21
 * show the recorder doing it for kr-node-1); the scheduler binds a pod before any kubelet acts on it
 * (pods/binding, 09 #5), which gives the pod `spec.nodeName` and the PodScheduled condition. The API
 * server proxies pods/log to the kubelet at the Node's InternalIP and kubelet port
 * (handlers/podLog.ts): only this Node's kubelet answers there.
 */
export const STAND_IN_NODE = {
  name: 'emulator-node-1',
  internalIP: '10.0.0.1',
  kubeletPort: 10250,
};

/** Registers the Node once (as the kubelet does at start), Ready, its not-ready taint lifted. */
function ensureStandInNode(emu: KubeEmulator): Obj {
  const existing = emu.store.get('/nodes', undefined, STAND_IN_NODE.name);
  if (existing) return existing;
  const at = rfc3339(emu.now());
  emu.seed(emu.typeByName('nodes'), {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: STAND_IN_NODE.name,
      labels: {
        'kubernetes.io/hostname': STAND_IN_NODE.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
      },
    },
  });
  const node = emu.store.get('/nodes', undefined, STAND_IN_NODE.name)!;
  // The node lifecycle controller lifts the not-ready taint once the kubelet reports Ready.
  delete node.spec.taints;
  node.status = {
    ...node.status,
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        lastHeartbeatTime: at,
        lastTransitionTime: at,
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
      },
    ],
    addresses: [
      { type: 'InternalIP', address: STAND_IN_NODE.internalIP },
      { type: 'Hostname', address: STAND_IN_NODE.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: STAND_IN_NODE.kubeletPort } },
    nodeInfo: {
      ...node.status.nodeInfo,
      kubeletVersion: 'v1.32.13',
      containerRuntimeVersion: 'containerd://1.7.24',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
  emu.store.put('/nodes', node, 'MODIFIED');
  emu.afterWrite();
  return node;
}

/**
 * The scheduler binds the pod to the stand-in Node, unless it is bound already (a pod bound
 * elsewhere stays there: its logs then come from that node's kubelet, which no one plays).
 */
export async function bindToStandInNode(emu: KubeEmulator, pod: Obj): Promise<void> {
  ensureStandInNode(emu);
  const { namespace, name } = pod.metadata;
  const current = emu.store.get('/pods', namespace, name);
  if (!current || current.spec.nodeName) return;
  const response = await fetch(`${emu.url}/api/v1/namespaces/${namespace}/pods/${name}/binding`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${emu.adminToken}` },
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name },
      target: { apiVersion: 'v1', kind: 'Node', name: STAND_IN_NODE.name },
    }),
  });
  // 409: bound meanwhile (the check above and the binding are not one step).
  if (!response.ok && response.status !== 409) {
    throw new Error(`binding refused: ${response.status} ${await response.text()}`);
  }
}

let lastPodIp = 1;

/** An address from the node's pod CIDR for each pod the kubelet starts (09 #7 shows one). */
export function nextPodIP(): string {
  lastPodIp = (lastPodIp % 250) + 1;
  return `10.244.0.${lastPodIp + 1}`;
}
