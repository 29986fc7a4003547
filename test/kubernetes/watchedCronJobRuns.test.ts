import {
  CoreV1Api,
  type ObjectCache,
  PatchStrategy,
  setHeaderOptions,
  type V1Job,
  type V1Pod,
} from '@kubernetes/client-node';
import type { Database } from '../../src/store/database';
import { findWatchedJob } from '../../src/store/watchedCronJobJobs';
import { createTestDatabase } from '../support/database';
import type { KubeEmulator } from '../support/kube/emulator';
import { failPodOomKilled } from '../support/kube/kubeletFaults';
import { runPod } from '../support/kube/kubelet';
import { startTestService, type TestService } from '../support/service';
import { NAMESPACE, runController, startCluster, until } from './cluster';
import { createCronJob, createCronJobWatch, plainCronJob } from './watchedCronJobsSupport';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Issue 40: the runs of a watched CronJob recorded from what Kubernetes shows, with nothing of
 * Crondeck in its pods: one execution per pod (each retry under backoffLimit), the exit code from
 * the container's terminated state, the reason (the Job's condition, or what the pod says), the
 * pod's log as output, and the Job's and pods' Warning events; each once, across a restart.
 * The emulator's Job controller and stand-in kubelet write the Job and pod status as recorded in
 * 09-job-pod; the log of a pod (pods/log) and the pod faults go beyond the recordings (no kubelet
 * was recorded): their shapes are upstream's (kubelet.ts, kubeletFaults.ts, podLogFaults.ts).
 */
describe('the runs of a watched CronJob', () => {
  let emu: KubeEmulator;
  let kc: Parameters<typeof runController>[0];
  let db: Database;
  let service: TestService;
  let controller: Awaited<ReturnType<typeof runController>>;
  const fireTime = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000);

  beforeAll(async () => {
    ({ emu, kc } = await startCluster());
    db = await createTestDatabase();
    service = await startTestService({ db });
    controller = await runController(kc, db);
    const yearly = `${fireTime.getUTCMinutes()} ${fireTime.getUTCHours()} ${fireTime.getUTCDate()} ${fireTime.getUTCMonth() + 1} *`;
    const labels = { team: 'data' };
    const utc = { timeZone: 'UTC' };
    await createCronJob(
      kc,
      plainCronJob('flaky', {
        labels,
        schedule: yearly,
        command: 'echo out; echo err >&2; exit 3',
        spec: { ...utc, jobTemplate: jobTemplate({ backoffLimit: 1 }, 'echo out; echo err >&2; exit 3') },
      }),
    );
    await createCronJob(
      kc,
      plainCronJob('fine', { labels, schedule: yearly, spec: utc, command: 'echo done' }),
    );
    await createCronJob(
      kc,
      plainCronJob('hungry', {
        labels,
        schedule: yearly,
        spec: { ...utc, jobTemplate: jobTemplate({}, 'sleep 30', { limits: { memory: '64Mi' } }) },
      }),
    );
    await createCronJob(
      kc,
      plainCronJob('ephemeral', {
        labels,
        schedule: yearly,
        spec: { ...utc, jobTemplate: jobTemplate({ ttlSecondsAfterFinished: 0 }, 'echo lost') },
      }),
    );
    await createCronJobWatch(kc, 'data-team', { selector: { matchLabels: labels } });
    await until(async () => (await findWatchedJob(db.pool, NAMESPACE, 'ephemeral')) !== null, 'the job rows');
    await until(async () => (await findWatchedJob(db.pool, NAMESPACE, 'flaky')) !== null, 'the job rows');
  }, 60_000);
  afterAll(async () => {
    await controller.stop();
    await service.stop();
    await emu.stop();
    await db.close();
  });

  const jobIdOf = async (cronJob: string) => (await findWatchedJob(db.pool, NAMESPACE, cronJob))!.id;
  const executions = async (jobId: number) =>
    ((await service.request('GET', `/api/executions?jobId=${jobId}`)).body as Obj[]).sort(
      (a, b) => a.attempt - b.attempt,
    );
  const full = async (id: number) => (await service.request('GET', `/api/executions/${id}`)).body as Obj;
  const podsOf = (job: Obj) =>
    emu.objects('pods', NAMESPACE).filter((p) => p.metadata.ownerReferences?.[0]?.uid === job.metadata.uid);
  /** The CronJob controller fires; the Job controller makes the pod. */
  const fire = (cronJob: string): Obj => {
    const job = emu.fireCronJob(NAMESPACE, cronJob, fireTime);
    emu.syncJob(NAMESPACE, job.metadata.name);
    return job;
  };
  const newestPod = (job: Obj) =>
    podsOf(job).sort(
      (a, b) => Date.parse(b.metadata.creationTimestamp) - Date.parse(a.metadata.creationTimestamp),
    )[0]!;

  it('records each retry as an attempt, with exit code, output, reason and Warning events', async () => {
    const id = await jobIdOf('flaky');
    const job = fire('flaky');
    expect(await runPod(emu, NAMESPACE, podsOf(job)[0]!.metadata.name)).toBe(3);
    emu.syncJob(NAMESPACE, job.metadata.name);
    // backoffLimit 1: a second pod, and the Job fails with BackoffLimitExceeded.
    await until(() => podsOf(job).length === 2, 'the retry’s pod');
    const second = podsOf(job).find((p) => p.status?.phase !== 'Failed')!;
    expect(await runPod(emu, NAMESPACE, second.metadata.name)).toBe(3);
    emu.syncJob(NAMESPACE, job.metadata.name);

    const recorded = await until(
      async () => ((await executions(id)).length === 2 ? executions(id) : null),
      'both attempts',
    );
    expect(recorded.map((e) => [e.attempt, e.status, e.exitCode, e.scheduledAt])).toEqual([
      [0, 'failed', 3, fireTime.toISOString()],
      [1, 'failed', 3, fireTime.toISOString()],
    ]);
    expect(recorded.map((e) => e.reason)).toEqual([null, 'BackoffLimitExceeded']);
    const last = await full(recorded[1]!.id);
    expect(last.stdout).toBe('out\nerr\n');
    expect(last.stderr).toContain(
      `[kubernetes] Warning BackoffLimitExceeded (Job ${job.metadata.name}): Job has reached the specified backoff limit`,
    );
    expect((await full(recorded[0]!.id)).stdout).toBe('out\nerr\n');
  }, 60_000);

  it('records a success with its output, and a pod’s OOMKilled as the reason', async () => {
    const fine = fire('fine');
    expect(await runPod(emu, NAMESPACE, newestPod(fine).metadata.name)).toBe(0);
    emu.syncJob(NAMESPACE, fine.metadata.name);
    const [done] = await until(async () => {
      const found = await executions(await jobIdOf('fine'));
      return found.length === 1 ? found : null;
    }, 'the success');
    expect(done).toMatchObject({ status: 'success', exitCode: 0, reason: null });
    expect((await full(done!.id)).stdout).toBe('done\n');

    const hungry = fire('hungry');
    await failPodOomKilled(emu, NAMESPACE, newestPod(hungry).metadata.name);
    emu.syncJob(NAMESPACE, hungry.metadata.name);
    const [killed] = await until(async () => {
      const found = await executions(await jobIdOf('hungry'));
      return found.length === 1 ? found : null;
    }, 'the OOM-killed run');
    // The limit is named from the pod's spec.
    expect(killed).toMatchObject({
      status: 'failed',
      exitCode: 137,
      reason: 'OOMKilled',
      reasonMessage:
        'container "main" reached its memory limit of 64Mi and was killed by the kernel (Kubernetes does not report the peak usage)',
    });
  }, 60_000);

  it('says plainly that the output is gone when the log could not be read before the pod went', async () => {
    emu.podLogFaults.set({ kind: 'unreachable' });
    try {
      const job = fire('ephemeral');
      expect(await runPod(emu, NAMESPACE, newestPod(job).metadata.name)).toBe(0);
      // ttlSecondsAfterFinished: 0 deletes the Job as it ends; the garbage collector its pod.
      emu.syncJob(NAMESPACE, job.metadata.name);
      emu.collectGarbage();
      const [run] = await until(async () => {
        const found = await executions(await jobIdOf('ephemeral'));
        return found.length === 1 ? found : null;
      }, 'the run of the deleted Job');
      expect(run).toMatchObject({ status: 'success', exitCode: 0 });
      const shown = await full(run!.id);
      expect(shown.stdout).toBe('');
      expect(shown.stderr).toMatch(
        /^\[crondeck\] no output: the log (is no longer available: the pod was deleted before it was read|could not be read: .*connection refused)\n/,
      );
    } finally {
      emu.podLogFaults.clear();
    }
  }, 60_000);

  it('records the runs of Jobs a CronJob made before it was selected, once it is', async () => {
    await createCronJob(
      kc,
      plainCronJob('earlier', {
        labels: { team: 'ops' },
        schedule: '0 0 1 1 *',
        spec: { timeZone: 'UTC', jobTemplate: jobTemplate({}, 'echo before') },
      }),
    );
    const job = emu.createJobFromCronJob(NAMESPACE, 'earlier', 'earlier-manual-1');
    emu.syncJob(NAMESPACE, job.metadata.name);
    expect(await runPod(emu, NAMESPACE, newestPod(job).metadata.name)).toBe(0);
    emu.syncJob(NAMESPACE, job.metadata.name);
    await createCronJobWatch(kc, 'ops-team', { selector: { matchLabels: { team: 'ops' } } });
    const [run] = await until(async () => {
      const row = await findWatchedJob(db.pool, NAMESPACE, 'earlier');
      const found = row ? await executions(row.id) : [];
      return found.length === 1 ? found : null;
    }, 'the earlier run recorded');
    // Made by hand (kubectl create job --from=cronjob/earlier): a run of no slot.
    expect(run).toMatchObject({ status: 'success', exitCode: 0, scheduledAt: null });
    expect((await full(run!.id)).stdout).toBe('before\n');
  }, 60_000);

  it('keeps nothing of the pods of a CronJob no selection holds once they go', async () => {
    await createCronJob(
      kc,
      plainCronJob('loner', {
        labels: { team: 'nobody' },
        schedule: '0 0 1 1 *',
        spec: { timeZone: 'UTC', jobTemplate: jobTemplate({ ttlSecondsAfterFinished: 0 }, 'echo alone') },
      }),
    );
    const job = emu.createJobFromCronJob(NAMESPACE, 'loner', 'loner-manual-1');
    emu.syncJob(NAMESPACE, job.metadata.name);
    const pod = newestPod(job);
    expect(await runPod(emu, NAMESPACE, pod.metadata.name)).toBe(0);
    emu.syncJob(NAMESPACE, job.metadata.name);
    emu.collectGarbage();
    // The deletion seen (the Job's pods are watched by their controller-uid label), and let go.
    const runs = watchedRunsOf(controller);
    await until(
      () => !emu.objects('pods', NAMESPACE).some((p) => p.metadata.uid === pod.metadata.uid),
      'the pod gone',
    );
    // A later pass over a watched Job: by then the unwatched pod's deletion has been handled.
    const fine = emu.createJobFromCronJob(NAMESPACE, 'fine', 'fine-manual-2');
    emu.syncJob(NAMESPACE, fine.metadata.name);
    expect(await runPod(emu, NAMESPACE, newestPod(fine).metadata.name)).toBe(0);
    emu.syncJob(NAMESPACE, fine.metadata.name);
    await until(() => (runs.settled as Set<string>).has(fine.metadata.uid), 'the watched Job settled');
    expect((runs.podsGone as Map<string, unknown>).has(job.metadata.uid)).toBe(false);
    expect((runs.deps.logs.read as Map<string, unknown>).has(pod.metadata.uid)).toBe(false);
  }, 60_000);

  it('records each run once across a controller restart (keyed by the Job’s UID)', async () => {
    await controller.stop();
    controller = await runController(kc, db);
    const settled = watchedRunsOf(controller).settled as Set<string>;
    const jobs = emu.objects('jobs', NAMESPACE).filter((j) => j.status?.conditions?.length);
    await until(
      () => jobs.every((j) => settled.has(j.metadata.uid)),
      'the restarted controller to settle every Job',
    );
    expect(await executions(await jobIdOf('flaky'))).toHaveLength(2);
    expect(await executions(await jobIdOf('fine'))).toHaveLength(2);
  }, 60_000);

  it('keeps a recorded run’s Job and pods as metadata only, a pod that changes afterwards too', async () => {
    const job = emu.createJobFromCronJob(NAMESPACE, 'fine', 'fine-manual-3');
    emu.syncJob(NAMESPACE, job.metadata.name);
    const pod = newestPod(job);
    expect(await runPod(emu, NAMESPACE, pod.metadata.name)).toBe(0);
    emu.syncJob(NAMESPACE, job.metadata.name);
    const runs = watchedRunsOf(controller);
    await until(() => (runs.settled as Map<string, string>).has(job.metadata.uid), 'the Job settled');
    const { jobs, pods } = runs.deps.caches as { jobs: ObjectCache<V1Job>; pods: ObjectCache<V1Pod> };
    const cachedPod = () => pods.get(pod.metadata.name, NAMESPACE);
    const trimmed = (object: V1Job | V1Pod | undefined) => [object?.spec, object?.status];
    expect(trimmed(jobs.get(job.metadata.name, NAMESPACE))).toEqual([undefined, undefined]);
    expect(trimmed(cachedPod())).toEqual([undefined, undefined]);

    // A label added to the pod: its event brings it back whole, and it is trimmed again at once.
    await kc.makeApiClient(CoreV1Api).patchNamespacedPod(
      {
        namespace: NAMESPACE,
        name: pod.metadata.name,
        body: [{ op: 'add', path: '/metadata/labels/seen', value: 'yes' }],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    await until(() => cachedPod()?.metadata?.labels?.seen === 'yes', 'the pod’s change seen');
    expect(trimmed(cachedPod())).toEqual([undefined, undefined]);
  }, 60_000);
});

/** The controller's recorder of watched runs (WatchedCronJobs' `runs`): what it keeps, read as nothing else shows it. */
function watchedRunsOf(controller: Awaited<ReturnType<typeof runController>>): Obj {
  const watched = (controller.manager as unknown as { watched: { runs: Obj } | null }).watched;
  if (!watched) throw new Error('the controller is not acting');
  return watched.runs;
}

function jobTemplate(spec: Obj, command: string, resources: Obj = {}): Obj {
  return {
    spec: {
      backoffLimit: 0,
      ...spec,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', command], resources }],
        },
      },
    },
  };
}
