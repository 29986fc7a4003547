import type { V1Pod, V1PodStatus } from '@kubernetes/client-node';
import { diagnosePod, diagnosePods } from '../../src/controller/runs/podDiagnosis';

/** A run's pod (the single-container layout, a 256Mi limit) with the status a kubelet wrote. */
function pod(status: V1PodStatus, created = '2026-11-23T10:00:00Z'): V1Pod {
  return {
    metadata: { name: 'nightly-29000000-abcde', creationTimestamp: new Date(created) },
    spec: {
      containers: [
        { name: 'run', image: 'ghcr.io/crondeck/crondeck:1', resources: { limits: { memory: '256Mi' } } },
      ],
    },
    status,
  };
}

const terminated = (reason: string, exitCode: number) => ({
  name: 'run',
  image: 'ghcr.io/crondeck/crondeck:1',
  imageID: '',
  ready: false,
  restartCount: 0,
  state: { terminated: { exitCode, reason } },
});

describe('diagnosePod', () => {
  it('says nothing of a pod that runs, or whose command ended on its own, whatever its exit code', () => {
    expect(diagnosePod(pod({ phase: 'Pending' }))).toBeNull();
    expect(diagnosePod(pod({ phase: 'Failed', containerStatuses: [terminated('Error', 3)] }))).toBeNull();
    expect(
      diagnosePod(pod({ phase: 'Succeeded', containerStatuses: [terminated('Completed', 0)] })),
    ).toBeNull();
    const creating = { ...terminated('', 0), state: { waiting: { reason: 'ContainerCreating' } } };
    expect(diagnosePod(pod({ phase: 'Pending', containerStatuses: [creating] }))).toBeNull();
  });

  it('names an OOM kill with the container’s limit, and says when there was none', () => {
    expect(diagnosePod(pod({ phase: 'Failed', containerStatuses: [terminated('OOMKilled', 137)] }))).toEqual({
      code: 'OOMKilled',
      message:
        'container "run" reached its memory limit of 256Mi and was killed by the kernel (Kubernetes does not report the peak usage)',
    });
    const unlimited = pod({ phase: 'Failed', containerStatuses: [terminated('OOMKilled', 137)] });
    unlimited.spec!.containers[0]!.resources = {};
    expect(diagnosePod(unlimited)?.message).toContain('it has no memory limit, so the node ran out');
    // A native sidecar restarted after its OOM kill shows it in lastState.
    const sidecar = pod({
      phase: 'Running',
      initContainerStatuses: [
        {
          name: 'crondeck-runner',
          image: 'i',
          imageID: '',
          ready: true,
          restartCount: 1,
          state: { running: {} },
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
        },
      ],
    });
    expect(diagnosePod(sidecar)?.code).toBe('OOMKilled');
  });

  it('names evictions, lost nodes and preemption from the pod’s reason and DisruptionTarget condition', () => {
    expect(
      diagnosePod(
        pod({ phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' }),
      ),
    ).toEqual({
      code: 'Evicted',
      message: 'The node was low on resource: memory.',
    });
    const disrupted = (reason: string, message: string) =>
      diagnosePod(
        pod({ phase: 'Failed', conditions: [{ type: 'DisruptionTarget', status: 'True', reason, message }] }),
      );
    expect(disrupted('DeletionByTaintManager', 'Taint manager: deleting due to NoExecute taint')).toEqual({
      code: 'NodeLost',
      message: 'Taint manager: deleting due to NoExecute taint',
    });
    expect(disrupted('DeletionByPodGC', 'PodGC: node no longer exists')?.code).toBe('NodeLost');
    expect(disrupted('PreemptionByScheduler', 'Preempted in order to admit critical pod')?.code).toBe(
      'Preempted',
    );
    expect(disrupted('EvictionByEvictionAPI', 'Eviction API: evicting')?.code).toBe('Evicted');
    expect(
      diagnosePod(pod({ phase: 'Failed', reason: 'NodeLost', message: 'Node n1 is unresponsive' }))?.code,
    ).toBe('NodeLost');
  });

  it('names a container stuck before it starts: its image, with the image name, or its configuration', () => {
    const waiting = (reason: string, message: string) =>
      diagnosePod(
        pod({
          phase: 'Pending',
          containerStatuses: [
            {
              ...terminated('', 0),
              image: 'registry.example/nope:1',
              state: { waiting: { reason, message } },
            },
          ],
        }),
      );
    expect(waiting('ImagePullBackOff', 'Back-off pulling image "registry.example/nope:1"')).toEqual({
      code: 'ImagePullBackOff',
      message:
        'image "registry.example/nope:1" of container "run" could not be pulled: Back-off pulling image "registry.example/nope:1"',
    });
    expect(waiting('CreateContainerConfigError', "couldn't find key password in Secret crondeck/db")).toEqual(
      {
        code: 'CreateContainerConfigError',
        message: 'container "run" could not be created: couldn\'t find key password in Secret crondeck/db',
      },
    );
  });

  it('names a pod no node can take', () => {
    const message = '0/3 nodes are available: 3 Insufficient memory.';
    expect(
      diagnosePod(
        pod({
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }],
        }),
      ),
    ).toEqual({ code: 'Unschedulable', message });
  });
});

describe('diagnosePods', () => {
  it('reads the newest pod, and has nothing to say without one', () => {
    expect(diagnosePods([])).toBeUndefined();
    const older = pod(
      { phase: 'Failed', containerStatuses: [terminated('OOMKilled', 137)] },
      '2026-11-23T10:00:00Z',
    );
    const newer = pod({ phase: 'Running' }, '2026-11-23T10:05:00Z');
    expect(diagnosePods([older, newer])).toBeNull();
    expect(diagnosePods([newer, older])).toBeNull();
  });
});
