import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { keepMetadataOnly } from '../../src/controller/watchedCronJobs/settledJobs';
import { cacheOf } from './support/objectCaches';

const job = (namespace: string, name: string, uid: string): V1Job => ({
  metadata: {
    namespace,
    name,
    uid,
    ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'dump', uid: 'cj' }],
  },
  spec: { template: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } },
  status: { succeeded: 1 },
});

const podOf = (owner: V1Job, name: string): V1Pod => ({
  metadata: {
    namespace: owner.metadata!.namespace,
    name,
    uid: `${name}-uid`,
    ownerReferences: [
      { apiVersion: 'batch/v1', kind: 'Job', name: owner.metadata!.name!, uid: owner.metadata!.uid! },
    ],
  },
  spec: { containers: [{ name: 'main', image: 'busybox' }] },
  status: { phase: 'Succeeded' },
});

/**
 * Issue 40, "metadata only where the full object is not needed": a recorded Job, and its pods, stay in
 * the caches as their metadata alone; every other object stays whole.
 */
describe('what the caches keep of a settled Job', () => {
  it('keeps the Job and its pods as metadata, and nothing else', () => {
    const recorded = job('a', 'dump-1', 'job-1');
    const going = job('a', 'dump-2', 'job-2');
    const elsewhere = job('b', 'dump-1', 'job-3');
    const pods = [podOf(recorded, 'p1'), podOf(recorded, 'p2'), podOf(going, 'p3'), podOf(elsewhere, 'p4')];
    const caches = { jobs: cacheOf([recorded, going, elsewhere]), pods: cacheOf(pods) };

    keepMetadataOnly({ ...recorded }, caches);

    expect(recorded).toEqual({ metadata: recorded.metadata });
    expect(recorded.metadata?.ownerReferences?.[0]?.name).toBe('dump');
    expect(pods.map((pod) => [pod.metadata?.name, pod.spec !== undefined, pod.status !== undefined])).toEqual(
      [
        ['p1', false, false],
        ['p2', false, false],
        ['p3', true, true],
        ['p4', true, true],
      ],
    );
    expect(going.status).toEqual({ succeeded: 1 });
    expect(elsewhere.spec).toBeDefined();
  });

  it('leaves a Job of the same name made since (another UID) whole', () => {
    const newer = job('a', 'dump-1', 'job-new');
    keepMetadataOnly(job('a', 'dump-1', 'job-old'), { jobs: cacheOf([newer]), pods: cacheOf([]) });
    expect(newer.status).toEqual({ succeeded: 1 });
  });
});
