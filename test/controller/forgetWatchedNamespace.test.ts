import type { V1CronJob, V1Job, V1Pod } from '@kubernetes/client-node';
import type { Pool } from 'pg';
import { DeletedJobs } from '../../src/controller/runs/deletedJobs';
import type { PodLogs } from '../../src/controller/watchedCronJobs/podLogs';
import { WatchedRunReconciler } from '../../src/controller/watchedCronJobs/watchedRunReconciler';
import type { CronJobWatch } from '../../src/kube/resources/cronJobWatch';
import type { ClusterRunRecorder } from '../../src/scheduling/clusterRunRecorder';
import type { ExecutionRecorder } from '../../src/scheduling/executionRecorder';
import { createMemoryLogger } from '../support/memoryLogger';
import { cacheOf } from './support/objectCaches';

function kubeJob(namespace: string, name: string, uid: string): V1Job {
  return {
    metadata: {
      namespace,
      name,
      uid,
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'dump', uid: `cj-${namespace}` }],
    },
    status: { startTime: new Date(), active: 1 },
  };
}

function podOf(job: V1Job, uid: string): V1Pod {
  const { namespace, name } = job.metadata!;
  return {
    metadata: {
      namespace,
      name: `${name}-${uid}`,
      uid,
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: name!, uid: job.metadata!.uid! }],
    },
    status: { phase: 'Running' },
  };
}

/**
 * Issue 40: a namespace's caches close with its last CronJobWatch, and what the run recorder held
 * for its Jobs (deleted Jobs waiting to be recorded, pods gone, logs read) goes with them; another
 * namespace's stays. Without it each namespace watched and let go would leave its leftovers for good.
 */
describe('forgetting a namespace no longer watched', () => {
  it('lets go the deleted Jobs of that namespace only (not those of a namespace its name begins)', () => {
    const deleted = new DeletedJobs();
    for (const namespace of ['a', 'ab', 'b'])
      deleted.keep(kubeJob(namespace, 'run-1', `${namespace}-1`), `${namespace}-1`, new Date(), []);
    expect(deleted.letGoNamespace('a').map((gone) => gone.uid)).toEqual(['a-1']);
    expect(deleted.named('a', 'run-1')).toEqual([]);
    expect(deleted.named('ab', 'run-1')).toHaveLength(1);
    expect(deleted.named('b', 'run-1')).toHaveLength(1);
  });

  it('forgets the runs’ leftovers of that namespace, and the logs of its pods', () => {
    const jobs = ['a', 'b'].map((namespace) => kubeJob(namespace, 'run-1', `job-${namespace}`));
    const pods = jobs.map((job) => podOf(job, `pod-${job.metadata!.namespace}`));
    const cronJobs: V1CronJob[] = ['a', 'b'].map((namespace) => ({
      metadata: { namespace, name: 'dump', uid: `cj-${namespace}`, labels: { team: 'data' } },
    }));
    const watches = ['a', 'b'].map(
      (namespace) =>
        ({
          apiVersion: 'crondeck.dev/v1alpha1',
          kind: 'CronJobWatch',
          metadata: { namespace, name: 'w' },
          spec: { selector: { matchLabels: { team: 'data' } }, lateAfterSeconds: 300, allowBackfill: false },
        }) as CronJobWatch,
    );
    const podGone = jest.fn();
    const forget = jest.fn();
    const runs = new WatchedRunReconciler({
      pool: {} as Pool,
      caches: {
        watches: cacheOf(watches),
        cronJobs: cacheOf(cronJobs),
        jobs: cacheOf(jobs),
        pods: cacheOf([]),
      },
      recorder: {} as ExecutionRecorder,
      skips: {} as ClusterRunRecorder,
      logs: { podGone, forget } as unknown as PodLogs,
      warnings: async () => [],
      clock: { now: () => new Date() },
      logger: createMemoryLogger(),
      defaultTimeZone: 'UTC',
    });
    // In both namespaces: the pod went, then its Job, before the run was recorded.
    for (const [index, pod] of pods.entries()) {
      runs.podDeleted(pod);
      expect(runs.jobDeleted(jobs[index]!)).toBe(true);
    }
    expect(podGone.mock.calls).toEqual([['pod-a'], ['pod-b']]);

    const livePod = podOf(jobs[0]!, 'pod-a-live');
    runs.forgetNamespace('a', [livePod]);
    expect(forget).toHaveBeenCalledTimes(1);
    expect([...(forget.mock.calls[0]![0] as Iterable<string>)].sort()).toEqual(['pod-a', 'pod-a-live']);
    // Namespace b keeps its deleted Job: forgetting b now lets its pod go too.
    runs.forgetNamespace('b', []);
    expect([...(forget.mock.calls[1]![0] as Iterable<string>)]).toEqual(['pod-b']);
    // Nothing of either is left.
    runs.forgetNamespace('a', []);
    runs.forgetNamespace('b', []);
    expect(forget.mock.calls.slice(2).map(([uids]) => [...(uids as Iterable<string>)])).toEqual([[], []]);
  });
});
