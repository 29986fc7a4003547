import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { KubeEmulator } from '../support/kube/emulator';
import { kubeConfigFor } from '../support/kube/kubeconfig';
import type { Obj } from '../support/kube/types';

/**
 * A Job created with `spec.suspend: true` and resumed later, as kcm 1.32's Job controller handles
 * it (upstream syncJob; beyond the recorded transcripts, none of which suspends a Job): no pod and
 * no start time while suspended, the condition Suspended (JobSuspended) and the Event Suspended; on
 * resumption the condition turns False (JobResumed), the Event Resumed, a pod, and a start time of
 * the resumption (from which `activeDeadlineSeconds` counts). A backfill's Jobs made with a
 * caller's token wait so until the controller resumes them.
 */
const NS = 'suspension';

describe('the emulated Job controller and suspended Jobs', () => {
  let emu: KubeEmulator;
  let batch: BatchV1Api;
  let now: number;
  beforeEach(async () => {
    now = Date.parse('2026-12-07T09:00:00Z');
    emu = await KubeEmulator.start({ now: () => new Date(now) });
    const kc = kubeConfigFor(emu);
    batch = kc.makeApiClient(BatchV1Api);
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
  });
  afterEach(() => emu.stop());

  const podsOf = (job: string): Obj[] =>
    emu.objects('pods', NS).filter((p) => p.metadata.labels?.['batch.kubernetes.io/job-name'] === job);
  const eventsOf = (job: string): string[] =>
    emu
      .objects('events', NS)
      .filter((e) => e.involvedObject?.name === job)
      .map((e) => `${e.type} ${e.reason}: ${e.message}`);

  it('makes no pod while suspended, and one from the moment it is resumed', async () => {
    await batch.createNamespacedJob({
      namespace: NS,
      body: {
        metadata: { name: 'waits' },
        spec: {
          suspend: true,
          template: {
            spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] },
          },
        },
      },
    });
    const suspended = emu.syncJob(NS, 'waits');
    expect(podsOf('waits')).toEqual([]);
    expect(suspended.status.startTime).toBeUndefined();
    expect(suspended.status.conditions).toEqual([
      expect.objectContaining({
        type: 'Suspended',
        status: 'True',
        reason: 'JobSuspended',
        message: 'Job suspended',
      }),
    ]);
    // Synced again, it says it once.
    emu.syncJob(NS, 'waits');
    expect(eventsOf('waits')).toEqual(['Normal Suspended: Job suspended']);

    now += 3_600_000;
    await batch.patchNamespacedJob({
      namespace: NS,
      name: 'waits',
      body: [{ op: 'replace', path: '/spec/suspend', value: false }],
    });
    const resumed = emu.syncJob(NS, 'waits');
    expect(podsOf('waits')).toHaveLength(1);
    expect(resumed.status.startTime).toBe('2026-12-07T10:00:00Z');
    expect(resumed.status.conditions).toEqual([
      expect.objectContaining({
        type: 'Suspended',
        status: 'False',
        reason: 'JobResumed',
        message: 'Job resumed',
      }),
    ]);
    expect(eventsOf('waits')).toEqual([
      'Normal Suspended: Job suspended',
      'Normal Resumed: Job resumed',
      expect.stringMatching(/^Normal SuccessfulCreate: Created pod: waits-/),
    ]);
  });
});
