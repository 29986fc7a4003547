import { ApiException, CoreV1Api } from '@kubernetes/client-node';
import { KubeEmulator } from '../support/kube/emulator';
import { kubeConfigFor } from '../support/kube/kubeconfig';
import { runPod } from '../support/kube/kubelet';
import type { Obj } from '../support/kube/types';

/**
 * What removes a finished Job, its pods and so their logs: the TTL-after-finished controller
 * (`ttlSecondsAfterFinished`; upstream, no recording shows it) and the CronJob controller's history
 * limits (`successfulJobsHistoryLimit` / `failedJobsHistoryLimit`; upstream cleanupFinishedJobs, the
 * recorded 08-cronjob never went past its limits). A log read after that is a 404, as for any pod
 * that is gone: whoever wants a run's output reads it before.
 */

const NS = 'history';
const IMAGE = 'busybox:1.36';

async function logStatus(core: CoreV1Api, pod: string): Promise<number | string> {
  try {
    return await core.readNamespacedPodLog({ namespace: NS, name: pod });
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
}

describe('finished Jobs removed by TTL and by CronJob history limits, their pods and logs with them', () => {
  let emu: KubeEmulator;
  let core: CoreV1Api;
  let now: number;
  beforeEach(async () => {
    now = Date.parse('2026-11-23T10:00:30Z');
    emu = await KubeEmulator.start({ now: () => new Date(now) });
    core = kubeConfigFor(emu).makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
  });
  afterEach(() => emu.stop());

  const template = (script: string) => ({
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', script] }],
        },
      },
    },
  });
  const podOf = (job: string): Obj =>
    emu.objects('pods', NS).find((p) => p.metadata.labels?.['batch.kubernetes.io/job-name'] === job)!;
  /** The Job controller and the kubelet until the Job has finished; its pod's name. */
  const runToEnd = async (job: string): Promise<string> => {
    emu.syncJob(NS, job);
    const pod = podOf(job).metadata.name as string;
    await runPod(emu, NS, pod);
    emu.syncJob(NS, job);
    return pod;
  };

  test('ttlSecondsAfterFinished: the Job and its pods go once the TTL has passed since it finished', async () => {
    emu.seed(emu.typeByName('batch/jobs'), {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'short-lived', namespace: NS },
      spec: { ...template('echo output').spec, ttlSecondsAfterFinished: 30 },
    });
    const pod = await runToEnd('short-lived');
    expect(emu.store.get('batch/jobs', NS, 'short-lived')!.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'Complete', status: 'True' }),
    );
    now += 29_000;
    expect(emu.expireFinishedJobs(NS)).toEqual([]);
    expect(await logStatus(core, pod)).toBe('output\n');
    now += 1_000;
    expect(emu.expireFinishedJobs(NS).map((job) => job.metadata.name)).toEqual(['short-lived']);
    // Foreground: the pods first, then the Job.
    expect(emu.store.get('batch/jobs', NS, 'short-lived')).toBeUndefined();
    expect(emu.objects('pods', NS)).toEqual([]);
    expect(await logStatus(core, pod)).toBe(404);
  });

  test('ttlSecondsAfterFinished: 0 deletes the Job as it finishes', async () => {
    emu.seed(emu.typeByName('batch/jobs'), {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'at-once', namespace: NS },
      spec: { ...template('exit 1').spec, ttlSecondsAfterFinished: 0 },
    });
    emu.syncJob(NS, 'at-once');
    const pod = podOf('at-once').metadata.name as string;
    expect(await runPod(emu, NS, pod)).toBe(1);
    const last = emu.syncJob(NS, 'at-once');
    expect(last.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'Failed', status: 'True' }),
    );
    expect(emu.store.get('batch/jobs', NS, 'at-once')).toBeUndefined();
    expect(await logStatus(core, pod)).toBe(404);
  });

  test('history limits: the oldest finished Jobs past the limit go as a newer one finishes, pods and logs too', async () => {
    emu.seed(emu.typeByName('batch/cronjobs'), {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly', namespace: NS },
      spec: {
        schedule: '* * * * *',
        successfulJobsHistoryLimit: 1,
        failedJobsHistoryLimit: 1,
        jobTemplate: template('echo ran'),
      },
    });
    const jobAt = (iso: string) => emu.fireCronJob(NS, 'nightly', new Date(iso)).metadata.name as string;
    const first = jobAt('2026-11-23T10:01:00Z');
    now = Date.parse('2026-11-23T10:01:05Z');
    const firstPod = await runToEnd(first);
    expect(await logStatus(core, firstPod)).toBe('ran\n');

    const second = jobAt('2026-11-23T10:02:00Z');
    now = Date.parse('2026-11-23T10:02:05Z');
    const secondPod = await runToEnd(second);
    expect(emu.objects('jobs', NS).map((j) => j.metadata.name)).toEqual([second]);
    expect(await logStatus(core, firstPod)).toBe(404);
    expect(await logStatus(core, secondPod)).toBe('ran\n');
    const events = emu
      .objects('events', NS)
      .filter((e) => e.involvedObject.name === 'nightly')
      .map((e) => `${e.reason} ${e.message}`);
    expect(events).toContain(`SuccessfulDelete Deleted job ${first}`);
  });
});
