import { KubeEmulator } from '../support/kube/emulator';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NS = 'ops';
const MINUTE = 60_000;

/**
 * What the emulated CronJob controller does with the Jobs it controls, as kube-controller-manager's
 * does: it deletes the finished ones past the history limits (cleanupFinishedJobs) as soon as a Job
 * ends and on every sync, counting every Job the CronJob controls; under `concurrencyPolicy:
 * Replace` it deletes the active Job before it starts the next fire time's. Both delete with
 * Background propagation (the garbage collector takes the pods) and say so in an Event.
 */
describe('the emulated CronJob controller’s history limits and Replace', () => {
  let emu: KubeEmulator;
  let now = Date.parse('2026-11-23T10:00:10Z');

  beforeEach(async () => {
    now = Date.parse('2026-11-23T10:00:10Z');
    emu = await KubeEmulator.start({ now: () => new Date(now) });
    emu.seed(emu.typeByName('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterEach(() => emu.stop());

  const seedCronJob = (name: string, spec: Obj) =>
    emu.seed(emu.typeByName('batch/cronjobs'), {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name, namespace: NS },
      spec: {
        schedule: '* * * * *',
        timeZone: 'UTC',
        jobTemplate: {
          spec: {
            backoffLimit: 0,
            template: {
              spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] },
            },
          },
        },
        ...spec,
      },
    });
  const jobNames = () => emu.objects('jobs', NS).map((job) => job.metadata.name as string);
  const podsOf = (job: Obj) =>
    emu.objects('pods', NS).filter((pod) => pod.metadata.ownerReferences?.[0]?.uid === job.metadata.uid);
  const cronJob = (name: string) => emu.objects('cronjobs', NS).find((c) => c.metadata.name === name)!;
  const events = (reason: string) =>
    emu
      .objects('events', NS)
      .filter((e) => e.reason === reason && e.involvedObject.kind === 'CronJob')
      .map((e) => e.message as string);
  /** The kubelet ends the Job's pod, then the Job controller the Job (a second on from the last). */
  const end = (job: Obj, phase: 'Succeeded' | 'Failed'): Obj => {
    now += 1000;
    const [pod] = podsOf(job);
    const stored = emu.store.get('/pods', NS, pod!.metadata.name)!;
    stored.status = { phase };
    emu.store.put('/pods', stored, 'MODIFIED');
    return emu.syncJob(NS, job.metadata.name);
  };
  /** A Job started by the Job controller (its pod made, its startTime now). */
  const started = (job: Obj): Obj => {
    now += 1000;
    emu.syncJob(NS, job.metadata.name);
    return job;
  };

  it('deletes the oldest finished Jobs past each limit as a Job ends, counting every Job the CronJob controls', () => {
    seedCronJob('nightly', { successfulJobsHistoryLimit: 2, failedJobsHistoryLimit: 1 });
    const first = started(emu.fireCronJob(NS, 'nightly', new Date('2026-11-23T10:00:00Z')));
    // A Job made from the CronJob (kubectl create job --from, Crondeck's catch-up and run-now Jobs).
    const manual = started(emu.createJobFromCronJob(NS, 'nightly', 'nightly-manual-1'));
    const second = started(emu.fireCronJob(NS, 'nightly', new Date('2026-11-23T10:01:00Z')));
    end(first, 'Succeeded');
    end(manual, 'Succeeded');
    expect(jobNames()).toHaveLength(3);

    // A third success: the oldest by start time goes, its pod with it.
    const left = end(second, 'Succeeded');
    expect(left.status.conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Complete' })]),
    );
    expect(jobNames().sort()).toEqual([manual.metadata.name, second.metadata.name].sort());
    expect(podsOf(first)).toEqual([]);
    expect(events('SuccessfulDelete')).toEqual([`Deleted job ${first.metadata.name}`]);

    // Failures count apart: the limit of 1 keeps the newer.
    const failing = [10, 11].map((m) =>
      started(emu.fireCronJob(NS, 'nightly', new Date(Date.parse('2026-11-23T10:00:00Z') + m * MINUTE))),
    );
    end(failing[0]!, 'Failed');
    expect(jobNames()).toContain(failing[0]!.metadata.name);
    end(failing[1]!, 'Failed');
    expect(jobNames()).not.toContain(failing[0]!.metadata.name);
    expect(jobNames()).toContain(failing[1]!.metadata.name);
    expect(events('SuccessfulDelete')).toEqual([
      `Deleted job ${first.metadata.name}`,
      `Deleted job ${failing[0]!.metadata.name}`,
    ]);
  });

  it('with failedJobsHistoryLimit 0 deletes the Job that just failed, which left status.active', () => {
    seedCronJob('once', { failedJobsHistoryLimit: 0 });
    const job = started(emu.fireCronJob(NS, 'once', new Date('2026-11-23T10:00:00Z')));
    expect(cronJob('once').status.active).toHaveLength(1);
    const last = end(job, 'Failed');
    // syncJob answers the Job as the Job controller left it: Failed.
    expect(last.status.conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Failed' })]),
    );
    expect(jobNames()).toEqual([]);
    expect(podsOf(job)).toEqual([]);
    expect(cronJob('once').status.active).toBeUndefined();
    expect(events('SuccessfulDelete')).toEqual([`Deleted job ${job.metadata.name}`]);
    // Deleted before the sync saw it in status.active: no SawCompletedJob, and none later.
    expect(emu.syncCronJob(NS, 'once')).toBeNull();
    expect(events('SawCompletedJob')).toEqual([]);
  });

  it('cleans up on every sync too, before it fires: a limit lowered since', () => {
    seedCronJob('lowered', { concurrencyPolicy: 'Forbid' });
    const jobs = [0, 1, 2].map((m) =>
      started(emu.fireCronJob(NS, 'lowered', new Date(Date.parse('2026-11-23T10:00:00Z') + m * MINUTE))),
    );
    for (const job of jobs) end(job, 'Succeeded');
    expect(jobNames()).toHaveLength(3);
    const stored = emu.store.get('batch/cronjobs', NS, 'lowered')!;
    stored.spec.successfulJobsHistoryLimit = 1;
    emu.store.put('batch/cronjobs', stored, 'MODIFIED');

    now = Date.parse('2026-11-23T10:03:05Z');
    const fired = emu.syncCronJob(NS, 'lowered')!;
    expect(jobNames().sort()).toEqual([jobs[2]!.metadata.name, fired.metadata.name].sort());
    expect(cronJob('lowered').status.lastSuccessfulTime).toBeDefined();
  });

  it('under Replace deletes the active Job (Background) before it starts the next fire time’s', () => {
    seedCronJob('replaced', { concurrencyPolicy: 'Replace' });
    now = Date.parse('2026-11-23T10:01:05Z');
    const first = emu.syncCronJob(NS, 'replaced')!;
    started(first);
    expect(podsOf(first)).toHaveLength(1);

    now = Date.parse('2026-11-23T10:02:05Z');
    const second = emu.syncCronJob(NS, 'replaced')!;
    expect(second.metadata.name).toBe(`replaced-${Date.parse('2026-11-23T10:02:00Z') / MINUTE}`);
    expect(jobNames()).toEqual([second.metadata.name]);
    expect(cronJob('replaced').status.active).toEqual([
      expect.objectContaining({ uid: second.metadata.uid }),
    ]);
    expect(cronJob('replaced').status.lastScheduleTime).toBe('2026-11-23T10:02:00Z');
    // Its pod is being deleted (the garbage collector's Background deletion; the Job controller's
    // finalizer holds it while it terminates).
    expect(podsOf(first)).toEqual([
      expect.objectContaining({
        metadata: expect.objectContaining({ deletionTimestamp: expect.any(String) }),
      }),
    ]);
    expect(events('SuccessfulDelete')).toEqual([`Deleted job ${first.metadata.name}`]);
    expect(events('SuccessfulCreate')).toEqual([
      `Created job ${first.metadata.name}`,
      `Created job ${second.metadata.name}`,
    ]);
  });

  it('under Allow and Forbid deletes no active Job', () => {
    for (const policy of ['Allow', 'Forbid']) {
      const name = policy.toLowerCase();
      seedCronJob(name, { concurrencyPolicy: policy });
    }
    now = Date.parse('2026-11-23T10:01:05Z');
    const allowed = started(emu.syncCronJob(NS, 'allow')!);
    const forbidden = started(emu.syncCronJob(NS, 'forbid')!);
    now = Date.parse('2026-11-23T10:02:05Z');
    expect(emu.syncCronJob(NS, 'allow')).not.toBeNull();
    expect(emu.syncCronJob(NS, 'forbid')).toBeNull();
    expect(jobNames()).toEqual(expect.arrayContaining([allowed.metadata.name, forbidden.metadata.name]));
    expect(events('SuccessfulDelete')).toEqual([]);
  });
});
