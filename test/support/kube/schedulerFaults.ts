import type { KubeEmulator } from './emulator';
import { rfc3339 } from './types';

/**
 * The scheduler finds no node for the pod: it stays Pending, unbound, with the PodScheduled
 * condition False, reason Unschedulable and the scheduler's summary (written through pods/status,
 * as kube-scheduler's failure handler does). Not recorded (the recordings had no scheduler): the
 * shape and the default message are upstream's. Its pods/log answers 204 without a body, as for
 * any pod without a node. The Job goes on until its activeDeadlineSeconds (09 #19–#21).
 */
export async function markUnschedulable(
  emu: KubeEmulator,
  namespace: string,
  podName: string,
  message = '0/1 nodes are available: 1 Insufficient memory. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
): Promise<void> {
  const response = await fetch(`${emu.url}/api/v1/namespaces/${namespace}/pods/${podName}/status`, {
    method: 'PATCH',
    headers: {
      'content-type': 'application/strategic-merge-patch+json',
      authorization: `Bearer ${emu.adminToken}`,
    },
    body: JSON.stringify({
      status: {
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            lastProbeTime: null,
            lastTransitionTime: rfc3339(emu.now()),
            reason: 'Unschedulable',
            message,
          },
        ],
      },
    }),
  });
  if (!response.ok) throw new Error(`pod status refused: ${response.status} ${await response.text()}`);
}
