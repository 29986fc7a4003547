import { KubeEmulator } from '../support/kube/emulator';

const cronJob = (name: string) => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name, namespace: 'ops' },
  spec: {
    schedule: '*/1 * * * *',
    timeZone: 'Europe/Berlin',
    jobTemplate: {
      metadata: { labels: { 'example.crondeck.dev/scheduledjob': name }, annotations: { note: 'x' } },
      spec: {
        backoffLimit: 0,
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] } },
      },
    },
  },
});

describe('the cluster controllers the emulator plays', () => {
  let emu: KubeEmulator;
  beforeEach(async () => {
    emu = await KubeEmulator.start();
    emu.seed(emu.typeByName('namespaces'), {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'ops' },
    });
  });
  afterEach(() => emu.stop());

  test('fireCronJob creates NAME-<minutes> like the CronJob controller (08-cronjob)', () => {
    emu.seed(emu.typeByName('batch/cronjobs'), cronJob('hello'));
    const at = new Date('2026-11-23T01:30:00Z');
    const job = emu.fireCronJob('ops', 'hello', at);
    expect(job.metadata.name).toBe(`hello-${at.getTime() / 60000}`);
    expect(job.metadata.labels).toEqual({ 'example.crondeck.dev/scheduledjob': 'hello' });
    expect(job.metadata.annotations).toEqual({
      'batch.kubernetes.io/cronjob-scheduled-timestamp': '2026-11-23T02:30:00+01:00',
      note: 'x',
    });
    expect(job.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'CronJob', name: 'hello', controller: true, blockOwnerDeletion: true }),
    ]);
    expect(job.status).toEqual({});
    const cron = emu.objects('cronjobs', 'ops')[0]!;
    expect(cron.status.lastScheduleTime).toBe('2026-11-23T01:30:00Z');
    expect(cron.status.active).toEqual([
      expect.objectContaining({ name: job.metadata.name, resourceVersion: job.metadata.resourceVersion }),
    ]);

    const manual = emu.createJobFromCronJob('ops', 'hello', 'manual-1');
    expect(manual.metadata.annotations['cronjob.kubernetes.io/instantiate']).toBe('manual');
    expect(manual.metadata.ownerReferences[0].blockOwnerDeletion).toBeUndefined();
  });

  test('syncJob creates the pod and follows it to Complete or Failed (09-job-pod); GC removes dependents', () => {
    emu.seed(emu.typeByName('batch/cronjobs'), cronJob('hello'));
    const job = emu.fireCronJob('ops', 'hello', new Date('2026-11-23T01:31:00Z'));
    emu.syncJob('ops', job.metadata.name);
    const [pod] = emu.objects('pods', 'ops');
    expect(pod!.metadata.generateName).toBe(`${job.metadata.name}-`);
    expect(pod!.metadata.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);
    expect(pod!.metadata.labels['batch.kubernetes.io/job-name']).toBe(job.metadata.name);
    expect(emu.objects('jobs', 'ops')[0]!.status).toMatchObject({ active: 1, ready: 0, terminating: 0 });

    const podObj = emu.store.get('/pods', 'ops', pod!.metadata.name)!;
    podObj.status = { phase: 'Succeeded' };
    emu.store.put('/pods', podObj, 'MODIFIED');
    const done = emu.syncJob('ops', job.metadata.name);
    expect(done.status.conditions.map((c: { type: string }) => c.type)).toEqual([
      'SuccessCriteriaMet',
      'Complete',
    ]);
    expect(emu.objects('pods', 'ops')[0]!.metadata.finalizers).toBeUndefined();

    // Background deletion of the CronJob takes its Job, and the Job's pod, with it.
    const counts = emu.requestCounts();
    emu.store.remove('batch/cronjobs', 'ops', 'hello');
    emu.collectGarbage();
    expect(emu.objects('jobs', 'ops')).toEqual([]);
    expect(emu.objects('pods', 'ops')).toEqual([]);
    expect(emu.requestCounts()).toEqual(counts);
  });

  test('syncJob replaces a failed pod until backoffLimit is passed, then fails the Job (Events as kcm records them)', () => {
    const job = emu.seed(emu.typeByName('batch/jobs'), {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'retry', namespace: 'ops' },
      spec: {
        backoffLimit: 1,
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] } },
      },
    });
    const failNewestPod = () => {
      const pod = emu.objects('pods', 'ops').find((p) => !p.status?.phase || p.status.phase === 'Pending')!;
      pod.status = { ...pod.status, phase: 'Failed' };
      emu.store.put('/pods', pod, 'MODIFIED');
    };
    emu.syncJob('ops', 'retry');
    failNewestPod();
    const retried = emu.syncJob('ops', 'retry');
    expect(retried.status).toMatchObject({ active: 1, failed: 1 });
    expect(emu.objects('pods', 'ops')).toHaveLength(2);
    failNewestPod();
    const failed = emu.syncJob('ops', 'retry');
    expect(failed.status.conditions.map((c: { type: string; reason: string }) => [c.type, c.reason])).toEqual(
      [
        ['FailureTarget', 'BackoffLimitExceeded'],
        ['Failed', 'BackoffLimitExceeded'],
      ],
    );
    expect(failed.status.failed).toBe(2);
    const events = emu
      .objects('events', 'ops')
      .filter((e) => e.involvedObject.uid === job.metadata.uid)
      .map((e) => `${e.type} ${e.reason}`);
    expect(events).toEqual([
      'Normal SuccessfulCreate',
      'Normal SuccessfulCreate',
      'Warning BackoffLimitExceeded',
    ]);
  });
});
