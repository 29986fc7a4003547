import type { V1Container, V1CronJob, V1PodSpec } from '@kubernetes/client-node';
import fc from 'fast-check';
import { type CronJobContext, desiredCronJob } from '../../src/controller/desired/cronJob';
import { desiredTokenSecret, reportTokenLocation } from '../../src/controller/desired/reportTokens';
import { RUNNER_ENV } from '../../src/runner/runnerEnvironment';
import { sidecarScript } from '../../src/controller/desired/sidecarScript';
import { kubeletLiteral } from '../../src/kube/kubeletLiteral';
import { scheduledJobCrd } from '../../src/controller/crds/definitions';
import { validateAgainstCrd, validateKubernetesObject } from '../support/openapi/kubernetesSchemas';
import { scheduledJob, scheduledJobArbitrary } from './support/arbitraries';

const context: CronJobContext = {
  jobId: 42,
  jobName: 'nightly-backup',
  image: 'ghcr.io/crondeck/crondeck:0.1.0',
  reportUrl: 'http://crondeck.crondeck-system.svc:7433/api/report',
  paused: false,
};

const podOf = (cronJob: V1CronJob): V1PodSpec => cronJob.spec!.jobTemplate.spec!.template.spec!;
const envNames = (container: V1Container) => (container.env ?? []).map((variable) => variable.name);
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

describe('desiredCronJob without spec.image (one container runs crondeck run)', () => {
  const job = scheduledJob('nightly-backup', {
    schedule: ' 30  2 * * * ',
    command: 'pg_dump "$DB" > /tmp/dump.sql',
    timeout: 600,
    retry: { maxAttempts: 2, baseDelay: 10 },
    env: [
      { name: 'DB', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } },
      { name: 'LEVEL', value: 'debug' },
    ],
    resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { memory: '1Gi' } },
  });
  const cronJob = desiredCronJob(job, context);
  const pod = podOf(cronJob);

  it('names, labels and owns the CronJob', () => {
    expect(cronJob.metadata).toEqual({
      name: 'nightly-backup',
      namespace: 'team-a',
      labels: {
        'app.kubernetes.io/managed-by': 'crondeck',
        'crondeck.dev/job-id': '42',
        'crondeck.dev/scheduled-job': 'nightly-backup',
      },
      ownerReferences: [
        {
          apiVersion: 'crondeck.dev/v1alpha1',
          kind: 'ScheduledJob',
          name: 'nightly-backup',
          uid: job.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(cronJob.spec!.jobTemplate.metadata!.labels).toEqual(cronJob.metadata!.labels);
    expect(cronJob.spec!.jobTemplate.spec!.template.metadata!.labels).toEqual(cronJob.metadata!.labels);
  });

  it('schedules as the spec says, with the defaults', () => {
    const { jobTemplate: _template, ...schedule } = cronJob.spec!;
    expect(schedule).toEqual({
      schedule: '30 2 * * *',
      timeZone: 'Etc/UTC',
      suspend: false,
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
  });

  it('leaves retries to the runner and bounds the run', () => {
    expect(cronJob.spec!.jobTemplate.spec).toMatchObject({
      backoffLimit: 0,
      // 300 overhead + 3 attempts × (600 + 30) + delays 10 + 20
      activeDeadlineSeconds: 300 + 3 * 630 + 30,
      ttlSecondsAfterFinished: 86400,
    });
    expect(pod.restartPolicy).toBe('Never');
  });

  it('runs crondeck run in the Crondeck image, restricted and read-only', () => {
    expect(pod.initContainers).toBeUndefined();
    expect(pod.shareProcessNamespace).toBeUndefined();
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.containers).toHaveLength(1);
    const [run] = pod.containers;
    expect(run).toMatchObject({
      name: 'run',
      image: context.image,
      command: ['crondeck', 'run'],
      // The one writable directory of the read-only root: `pg_dump > dump.sql` works.
      workingDir: '/tmp',
      securityContext: {
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        readOnlyRootFilesystem: true,
      },
      volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
      resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { memory: '1Gi' } },
    });
    expect(pod.volumes).toEqual([{ name: 'tmp', emptyDir: {} }]);
  });

  it('instructs the runner through env, with the token from the Secret and the pod from the downward API', () => {
    const [run] = pod.containers;
    expect(run!.env).toEqual([
      { name: 'CRONDECK_REPORT_URL', value: context.reportUrl },
      { name: 'CRONDECK_JOB_ID', value: '42' },
      { name: 'CRONDECK_JOB_NAME', value: 'nightly-backup' },
      // Every $ doubled: the kubelet reduces $$ to $ (kubeletLiteral.ts).
      { name: 'CRONDECK_COMMAND', value: 'pg_dump "$$DB" > /tmp/dump.sql' },
      { name: 'CRONDECK_TIMEOUT', value: '600' },
      { name: 'CRONDECK_RETRY_MAX_ATTEMPTS', value: '2' },
      { name: 'CRONDECK_RETRY_BASE_DELAY', value: '10' },
      {
        name: 'CRONDECK_REPORT_TOKEN',
        valueFrom: { secretKeyRef: { name: 'crondeck-report-tokens-0', key: 'job-42' } },
      },
      { name: 'CRONDECK_POD_UID', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.uid' } } },
      {
        name: 'CRONDECK_POD_NAME',
        valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } },
      },
      {
        name: 'CRONDECK_RUN_UID',
        valueFrom: {
          fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['batch.kubernetes.io/controller-uid']" },
        },
      },
      // The Job's name and the CronJob's: a Job named <cronjob>-<minutes> says its slot.
      {
        name: 'CRONDECK_KUBE_JOB_NAME',
        valueFrom: {
          fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['batch.kubernetes.io/job-name']" },
        },
      },
      { name: 'CRONDECK_CRONJOB_NAME', value: 'nightly-backup' },
      { name: 'DB', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } },
      { name: 'LEVEL', value: 'debug' },
    ]);
  });

  it('is valid for the real batch/v1 schema', () => {
    expect(validateKubernetesObject(cronJob)).toEqual({ valid: true, errors: [] });
  });
});

describe('desiredCronJob with spec.image (runner as a native sidecar)', () => {
  const job = scheduledJob('report', {
    schedule: '@hourly',
    command: 'make report',
    image: 'python:3.12-slim',
    imagePullPolicy: 'Always',
    timeZone: 'Europe/Berlin',
    env: [{ name: 'MODE', value: 'full' }],
  });
  const pod = podOf(desiredCronJob(job, context));

  it('runs the runner as a restartable init container sharing /crondeck', () => {
    expect(pod.shareProcessNamespace).toBe(true);
    expect(pod.initContainers).toHaveLength(1);
    const [runner] = pod.initContainers!;
    expect(runner).toMatchObject({
      name: 'crondeck-runner',
      image: context.image,
      restartPolicy: 'Always',
      command: ['crondeck', 'run', '--supervise'],
      // Its own, with limits, so that a ResourceQuota counting limits admits the pod.
      resources: { requests: { cpu: '10m', memory: '96Mi' }, limits: { cpu: '1', memory: '256Mi' } },
      volumeMounts: [
        { name: 'crondeck', mountPath: '/crondeck' },
        { name: 'tmp', mountPath: '/tmp' },
      ],
    });
    // All but the slot of a catch-up or backfill, which only the Jobs made for those carry.
    const slotOfJob: string[] = [RUNNER_ENV.scheduledTime, RUNNER_ENV.trigger];
    expect(envNames(runner!)).toEqual(Object.values(RUNNER_ENV).filter((name) => !slotOfJob.includes(name)));
    expect(pod.volumes).toEqual([
      { name: 'crondeck', emptyDir: {} },
      { name: 'tmp', emptyDir: {} },
    ]);
  });

  it("runs the script in the user's image, with the user's env", () => {
    expect(pod.containers).toEqual([
      expect.objectContaining({
        name: 'job',
        image: 'python:3.12-slim',
        imagePullPolicy: 'Always',
        command: ['/bin/sh', '-c', kubeletLiteral(sidecarScript('/crondeck'))],
        env: [{ name: 'MODE', value: 'full' }],
      }),
    ]);
    expect(envNames(pod.containers[0]!).some((name) => name.startsWith('CRONDECK_'))).toBe(false);
  });

  it('runs every container as the same non-root user, so the runner can signal the attempt', () => {
    expect(pod.securityContext!.runAsUser).toBe(65532);
    for (const container of [...pod.initContainers!, ...pod.containers]) {
      expect(container.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        readOnlyRootFilesystem: true,
      });
      expect(container.securityContext!.runAsUser).toBeUndefined();
    }
  });
});

describe('desiredCronJob rules', () => {
  const base = { schedule: '*/5 * * * *', command: 'true' };

  it('suspends when the job or the scheduler says so', () => {
    for (const [suspend, paused, expected] of [
      [false, false, false],
      [true, false, true],
      [false, true, true],
      [true, true, true],
    ] as const) {
      const cronJob = desiredCronJob(scheduledJob('a', { ...base, suspend }), { ...context, paused });
      expect(cronJob.spec!.suspend).toBe(expected);
    }
  });

  it('copies policy, limits and deadline, and takes the default time zone of the context', () => {
    const job = scheduledJob('a', {
      ...base,
      concurrencyPolicy: 'Replace',
      startingDeadlineSeconds: 30,
      successfulJobsHistoryLimit: 5,
      failedJobsHistoryLimit: 0,
    });
    expect(
      desiredCronJob(job, { ...context, defaultTimeZone: 'Asia/Tokyo', ttlSecondsAfterFinished: 60 }).spec,
    ).toMatchObject({
      timeZone: 'Asia/Tokyo',
      concurrencyPolicy: 'Replace',
      startingDeadlineSeconds: 30,
      successfulJobsHistoryLimit: 5,
      failedJobsHistoryLimit: 0,
      jobTemplate: { spec: { ttlSecondsAfterFinished: 60 } },
    });
  });

  it('spells the time zone as the time zone database does, which the API server reads case by case', () => {
    const zoneOf = (timeZone: string | undefined, defaultTimeZone?: string) =>
      desiredCronJob(scheduledJob('a', { ...base, timeZone }), { ...context, defaultTimeZone }).spec!
        .timeZone;
    expect(zoneOf('europe/berlin')).toBe('Europe/Berlin');
    expect(zoneOf('AMERICA/NEW_YORK')).toBe('America/New_York');
    expect(zoneOf(undefined, 'utc')).toBe('UTC');
    // Aliases are names of the database too, and stay as written.
    expect(zoneOf('Etc/UTC')).toBe('Etc/UTC');
    expect(zoneOf('Asia/Calcutta')).toBe('Asia/Calcutta');
  });

  it('sets no deadline for a job without timeout, and no starting deadline unless asked', () => {
    const spec = desiredCronJob(scheduledJob('a', base), context).spec!;
    expect(spec.jobTemplate.spec!.activeDeadlineSeconds).toBeUndefined();
    expect('startingDeadlineSeconds' in spec).toBe(false);
  });

  it('shortens long names to 52 characters, deterministically and distinctly', () => {
    const long = `${'a'.repeat(60)}-one`;
    const other = `${'a'.repeat(60)}-two`;
    const name = desiredCronJob(scheduledJob(long, base), context).metadata!.name!;
    expect(name).toHaveLength(52);
    expect(name).toBe(desiredCronJob(scheduledJob(long, base), context).metadata!.name);
    expect(name).not.toBe(desiredCronJob(scheduledJob(other, base), context).metadata!.name);
    expect(name).toMatch(/^a{43}-[0-9a-f]{8}$/);
  });

  it('never puts the token into the CronJob', () => {
    const job = scheduledJob('a', base);
    const token = 'tok-5b1f0c3e9a';
    expect(JSON.stringify(desiredCronJob(job, context))).not.toContain(token);
  });
});

describe('the report tokens’ Secrets', () => {
  it('keep a job’s token under job-<id>, 4,096 jobs to a Secret', () => {
    expect(reportTokenLocation(1)).toEqual({ secretName: 'crondeck-report-tokens-0', key: 'job-1' });
    expect(reportTokenLocation(4095)).toEqual({ secretName: 'crondeck-report-tokens-0', key: 'job-4095' });
    expect(reportTokenLocation(4096)).toEqual({ secretName: 'crondeck-report-tokens-1', key: 'job-4096' });
  });

  it('are Opaque Secrets the controller’s watch sees (managed-by) and the real schema accepts', () => {
    const secret = desiredTokenSecret('team-a', 'crondeck-report-tokens-0', { 'job-1': 'czNjcmV0' });
    expect(secret).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'crondeck-report-tokens-0',
        namespace: 'team-a',
        labels: { 'app.kubernetes.io/managed-by': 'crondeck', 'crondeck.dev/report-tokens': 'true' },
      },
      type: 'Opaque',
      data: { 'job-1': 'czNjcmV0' },
    });
    expect(validateKubernetesObject(secret)).toEqual({ valid: true, errors: [] });
  });
});

describe('every generated input', () => {
  const crd = scheduledJobCrd();

  it('gives a ScheduledJob the CRD accepts, and a CronJob the real schema accepts', () => {
    fc.assert(
      fc.property(scheduledJobArbitrary, fc.boolean(), ({ input, job }, paused) => {
        const resource = { ...job, spec: input };
        expect(validateAgainstCrd(resource, crd)).toEqual({ valid: true, errors: [] });
        const cronJob = desiredCronJob(job, { ...context, paused });
        expect(validateKubernetesObject(cronJob)).toEqual({ valid: true, errors: [] });

        // What the OpenAPI schema cannot say but the server checks (08-cronjob's 422s):
        const name = cronJob.metadata!.name!;
        expect(name.length).toBeLessThanOrEqual(52);
        expect(name).toMatch(DNS1123_SUBDOMAIN);
        const pod = podOf(cronJob);
        expect(pod.restartPolicy).toBe('Never');
        for (const container of [...(pod.initContainers ?? []), ...pod.containers])
          expect(container.image).toBeTruthy();
        const labels = Object.values(cronJob.metadata!.labels!);
        for (const value of labels) expect(value.length).toBeLessThanOrEqual(63);
      }),
      { numRuns: 150 },
    );
  });
});

describe('desiredCronJob with the installation’s pull settings (the chart’s image.pullPolicy, imagePullSecrets)', () => {
  const pulling: CronJobContext = {
    ...context,
    imagePullPolicy: 'Never',
    imagePullSecrets: ['regcred', 'mirror'],
  };

  it('pulls Crondeck’s image by that policy, and every image of the pod with those Secrets', () => {
    const plain = podOf(
      desiredCronJob(scheduledJob('plain', { schedule: '@daily', command: 'true' }), pulling),
    );
    expect(plain.imagePullSecrets).toEqual([{ name: 'regcred' }, { name: 'mirror' }]);
    expect(plain.containers[0]!.imagePullPolicy).toBe('Never');

    const job = scheduledJob('own-image', {
      schedule: '@daily',
      command: 'true',
      image: 'registry.example/tool:1',
    });
    const sidecar = podOf(desiredCronJob(job, pulling));
    expect(sidecar.imagePullSecrets).toEqual([{ name: 'regcred' }, { name: 'mirror' }]);
    expect(sidecar.initContainers![0]!.imagePullPolicy).toBe('Never');
    // The user's image keeps its own policy (spec.imagePullPolicy), the cluster's default when unset.
    expect(sidecar.containers[0]!.imagePullPolicy).toBeUndefined();
    expect(validateKubernetesObject(desiredCronJob(job, pulling))).toEqual({ valid: true, errors: [] });
  });

  it('sets neither without them', () => {
    const pod = podOf(
      desiredCronJob(scheduledJob('plain', { schedule: '@daily', command: 'true' }), context),
    );
    expect(pod).not.toHaveProperty('imagePullSecrets');
    expect(pod.containers[0]).not.toHaveProperty('imagePullPolicy');
  });

  it('leaves a variable of an empty value without `value`, as the API server stores it', () => {
    const job = scheduledJob('empty', {
      schedule: '@daily',
      command: 'true',
      env: [{ name: 'UNSET' }, { name: 'BLANK', value: '' }, { name: 'SET', value: 'x' }],
    });
    const env = podOf(desiredCronJob(job, context)).containers[0]!.env!;
    expect(env.filter((variable) => ['UNSET', 'BLANK', 'SET'].includes(variable.name))).toEqual([
      { name: 'UNSET' },
      { name: 'BLANK' },
      { name: 'SET', value: 'x' },
    ]);
  });
});
