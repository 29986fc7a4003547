import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { RUN_START_DEADLINE_MS, startVerdict } from '../../src/controller/runs/startDeadline';
import { diagnosePods } from '../../src/controller/runs/podDiagnosis';

const STARTED = new Date('2026-11-30T02:00:00Z');
const after = (ms: number) => new Date(STARTED.getTime() + ms);

function job(spec: V1Job['spec'] = { template: {} }): V1Job {
  return {
    metadata: { name: 'nightly-29000000', creationTimestamp: new Date(STARTED.getTime() - 1_000) },
    spec,
    status: { active: 1, startTime: STARTED },
  };
}

/** A pod whose job container waits as the kubelet says (transcript 09's shape). */
function waitingPod(reason: string): V1Pod {
  return {
    metadata: { name: 'nightly-29000000-abcde', creationTimestamp: STARTED },
    status: {
      phase: 'Pending',
      containerStatuses: [
        {
          name: 'job',
          image: 'registry.example/nightly:v2-typo',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: {
            waiting: { reason, message: 'Back-off pulling image "registry.example/nightly:v2-typo"' },
          },
        },
      ],
    },
  };
}

function verdict(pods: V1Pod[], now: Date, kubeJob = job()) {
  return startVerdict(kubeJob, pods, diagnosePods(pods), now);
}

describe('startVerdict: a run stuck before it could start', () => {
  it('waits out the deadline, then ends the Job at what it has been active', () => {
    const pods = [waitingPod('ImagePullBackOff')];
    expect(verdict(pods, after(60_000))).toEqual({ verdict: 'wait', inMs: RUN_START_DEADLINE_MS - 60_000 });
    expect(verdict(pods, after(RUN_START_DEADLINE_MS + 2_500))).toEqual({
      verdict: 'end',
      afterSeconds: RUN_START_DEADLINE_MS / 1000 + 2,
      reason: {
        code: 'ImagePullBackOff',
        message: expect.stringContaining('image "registry.example/nightly:v2-typo" of container "job"'),
      },
    });
  });

  it('ends a Job that made no pod, saying what refuses it', () => {
    expect(verdict([], after(RUN_START_DEADLINE_MS))).toEqual({
      verdict: 'end',
      afterSeconds: RUN_START_DEADLINE_MS / 1000,
      reason: { code: 'FailedCreate', message: expect.stringContaining('the Job made no pod in 10 minutes') },
    });
  });

  it('counts from the Job’s creation when it has no start time', () => {
    const unstarted = job();
    delete unstarted.status!.startTime;
    expect(verdict([], after(RUN_START_DEADLINE_MS - 1_000), unstarted)).toEqual({
      verdict: 'end',
      afterSeconds: 600,
      reason: expect.anything(),
    });
  });

  it('leaves alone a run that runs, one the scheduler cannot place yet, a suspended Job and one whose own deadline has passed', () => {
    const late = after(RUN_START_DEADLINE_MS * 3);
    const running: V1Pod = { metadata: { name: 'p' }, status: { phase: 'Running', containerStatuses: [] } };
    expect(verdict([running], late)).toEqual({ verdict: 'fine' });
    const unschedulable: V1Pod = {
      metadata: { name: 'p' },
      status: {
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message: '0/3 nodes are available',
          },
        ],
      },
    };
    expect(verdict([unschedulable], late)).toEqual({ verdict: 'fine' });
    expect(verdict([waitingPod('ContainerCreating')], late)).toEqual({ verdict: 'fine' });
    expect(verdict([], late, job({ template: {}, suspend: true }))).toEqual({ verdict: 'fine' });
    expect(
      verdict([waitingPod('ErrImagePull')], late, job({ template: {}, activeDeadlineSeconds: 900 })),
    ).toEqual({
      verdict: 'fine',
    });
  });

  it('ends a run stuck on its configuration as on its image', () => {
    expect(verdict([waitingPod('CreateContainerConfigError')], after(RUN_START_DEADLINE_MS))).toMatchObject({
      verdict: 'end',
      reason: { code: 'CreateContainerConfigError' },
    });
  });
});
