import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { KUBE_API_TRANSCRIPTS_DIR } from '../support/kubeApiFixtures';
import type { V1CronJob } from '@kubernetes/client-node';
import fc from 'fast-check';
import { type CronJobContext, desiredCronJob } from '../../src/controller/desired/cronJob';
import { cronJobDifferences, cronJobNeedsUpdate } from '../../src/controller/desired/cronJobNeedsUpdate';
import { quantityValue, sameQuantity } from '../../src/controller/desired/quantity';
import type { Loose } from '../support/openapi/loose';
import { scheduledJob, scheduledJobArbitrary } from './support/arbitraries';
import { asStoredByServer } from './support/serverDefaults';

const context: CronJobContext = {
  jobId: 7,
  jobName: 'backup',
  image: 'crondeck:1',
  reportUrl: 'http://crondeck/api/report',
  paused: false,
};

const plain = scheduledJob('plain', {
  schedule: '*/5 * * * *',
  command: 'echo hi',
  timeout: 60,
  resources: { requests: { cpu: '0.5', memory: 1048576 } },
  env: [{ name: 'A', value: '1' }],
});
const sidecar = scheduledJob('sidecar', { schedule: '@daily', command: 'run', image: 'alpine:3.20' });

describe('cronJobNeedsUpdate', () => {
  it('is false for what the real server stored from the same request (08-cronjob, exchange 15)', () => {
    const transcript = JSON.parse(readFileSync(resolve(KUBE_API_TRANSCRIPTS_DIR, '08-cronjob.json'), 'utf8'));
    const [sent, stored] = [transcript.exchanges[14].request.body, transcript.exchanges[14].response.body];
    expect(cronJobDifferences(sent, stored)).toEqual([]);
    // ...and true once it was suspended by a patch (exchange 34 reads it back).
    expect(cronJobDifferences(sent, transcript.exchanges[33].response.body)).toEqual(['spec.suspend']);
  });

  it('is false in a steady state: the stored object with server defaults, for every generated job', () => {
    fc.assert(
      fc.property(scheduledJobArbitrary, fc.boolean(), ({ job }, paused) => {
        const desired = desiredCronJob(job, { ...context, paused });
        expect(cronJobDifferences(desired, asStoredByServer(desired))).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it("ignores what others add: labels, annotations, status, another owner's reference", () => {
    const desired = desiredCronJob(plain, context);
    const stored = asStoredByServer(desired) as Loose;
    stored.metadata.labels.team = 'a';
    stored.metadata.annotations = { note: 'x' };
    stored.metadata.ownerReferences.push({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u-2' });
    stored.status = { lastScheduleTime: '2026-11-23T01:00:00Z' };
    expect(cronJobNeedsUpdate(desired, stored)).toBe(false);
  });

  type Edit = [string, (cronJob: Loose) => void, string];
  const pod = (cronJob: Loose) => cronJob.spec.jobTemplate.spec.template.spec;
  const editsOfPlain: Edit[] = [
    ['the schedule', (c) => (c.spec.schedule = '*/10 * * * *'), 'spec.schedule'],
    ['suspend', (c) => (c.spec.suspend = true), 'spec.suspend'],
    ['the time zone removed', (c) => delete c.spec.timeZone, 'spec.timeZone'],
    [
      'a starting deadline added',
      (c) => (c.spec.startingDeadlineSeconds = 5),
      'spec.startingDeadlineSeconds',
    ],
    ['the concurrency policy', (c) => (c.spec.concurrencyPolicy = 'Allow'), 'spec.concurrencyPolicy'],
    ['a history limit', (c) => (c.spec.failedJobsHistoryLimit = 9), 'spec.failedJobsHistoryLimit'],
    ['backoffLimit', (c) => (c.spec.jobTemplate.spec.backoffLimit = 6), 'spec.jobTemplate.spec.backoffLimit'],
    [
      'the deadline removed',
      (c) => delete c.spec.jobTemplate.spec.activeDeadlineSeconds,
      'spec.jobTemplate.spec.activeDeadlineSeconds',
    ],
    [
      'the image',
      (c) => (pod(c).containers[0].image = 'evil:1'),
      'spec.jobTemplate.spec.template.spec.containers.0.image',
    ],
    [
      'an env value',
      (c) => (pod(c).containers[0].env[13].value = '2'),
      'spec.jobTemplate.spec.template.spec.containers.0.env.13.value',
    ],
    [
      'an env var added',
      (c) => pod(c).containers[0].env.push({ name: 'B', value: '1' }),
      'spec.jobTemplate.spec.template.spec.containers.0.env',
    ],
    [
      'args added',
      (c) => (pod(c).containers[0].args = ['x']),
      'spec.jobTemplate.spec.template.spec.containers.0.args',
    ],
    [
      'a CPU request',
      (c) => (pod(c).containers[0].resources.requests.cpu = '600m'),
      'spec.jobTemplate.spec.template.spec.containers.0.resources.requests.cpu',
    ],
    [
      'a limit added',
      (c) => (pod(c).containers[0].resources.limits = { cpu: '1' }),
      'spec.jobTemplate.spec.template.spec.containers.0.resources.limits',
    ],
    [
      'the read-only root',
      (c) => (pod(c).containers[0].securityContext.readOnlyRootFilesystem = false),
      'spec.jobTemplate.spec.template.spec.containers.0.securityContext.readOnlyRootFilesystem',
    ],
    [
      'the pod user',
      (c) => (pod(c).securityContext.runAsUser = 0),
      'spec.jobTemplate.spec.template.spec.securityContext.runAsUser',
    ],
    [
      'an init container added',
      (c) => (pod(c).initContainers = [{ name: 'x', image: 'x' }]),
      'spec.jobTemplate.spec.template.spec.initContainers',
    ],
    ['hostPID', (c) => (pod(c).hostPID = true), 'spec.jobTemplate.spec.template.spec.hostPID'],
    [
      'restartPolicy',
      (c) => (pod(c).restartPolicy = 'OnFailure'),
      'spec.jobTemplate.spec.template.spec.restartPolicy',
    ],
    [
      'a pod label',
      (c) => (c.spec.jobTemplate.spec.template.metadata.labels['crondeck.dev/job-id'] = '8'),
      'spec.jobTemplate.spec.template.metadata.labels.crondeck.dev/job-id',
    ],
    [
      'a label',
      (c) => delete c.metadata.labels['app.kubernetes.io/managed-by'],
      'metadata.labels.app.kubernetes.io/managed-by',
    ],
    ['the owner', (c) => (c.metadata.ownerReferences = []), 'metadata.ownerReferences'],
  ];

  it.each(editsOfPlain)('detects a hand edit of %s', (_what, edit, path) => {
    const desired = desiredCronJob(plain, context);
    const stored = asStoredByServer(desired);
    edit(stored);
    expect(cronJobDifferences(desired, stored)).toEqual([path]);
  });

  const editsOfSidecar: Edit[] = [
    [
      'shareProcessNamespace removed',
      (c) => delete pod(c).shareProcessNamespace,
      'spec.jobTemplate.spec.template.spec.shareProcessNamespace',
    ],
    [
      'the runner removed',
      (c) => (pod(c).initContainers = []),
      'spec.jobTemplate.spec.template.spec.initContainers',
    ],
    [
      'the script',
      (c) => (pod(c).containers[0].command[2] = 'true'),
      'spec.jobTemplate.spec.template.spec.containers.0.command.2',
    ],
    [
      'env added to the job container',
      (c) => (pod(c).containers[0].env = [{ name: 'X', value: '1' }]),
      'spec.jobTemplate.spec.template.spec.containers.0.env',
    ],
  ];

  it.each(editsOfSidecar)('detects a hand edit of %s (sidecar layout)', (_what, edit, path) => {
    const desired = desiredCronJob(sidecar, context);
    const stored = asStoredByServer(desired);
    edit(stored);
    expect(cronJobDifferences(desired, stored)).toEqual([path]);
  });

  it('sees a change of layout', () => {
    const stored = asStoredByServer(desiredCronJob(sidecar, context));
    const withoutImage = scheduledJob('sidecar', { schedule: '@daily', command: 'run' });
    expect(cronJobNeedsUpdate(desiredCronJob(withoutImage, context), stored)).toBe(true);
  });

  it('sees the installation’s pull settings change: Secrets added or removed, another policy', () => {
    const pulling: CronJobContext = {
      ...context,
      imagePullPolicy: 'IfNotPresent',
      imagePullSecrets: ['regcred'],
    };
    const stored = asStoredByServer(desiredCronJob(plain, pulling)) as V1CronJob;
    expect(cronJobDifferences(desiredCronJob(plain, pulling), stored)).toEqual([]);
    const pod = 'spec.jobTemplate.spec.template.spec';
    expect(cronJobDifferences(desiredCronJob(plain, { ...pulling, imagePullSecrets: [] }), stored)).toEqual([
      `${pod}.imagePullSecrets`,
    ]);
    expect(
      cronJobDifferences(desiredCronJob(plain, { ...pulling, imagePullSecrets: ['other'] }), stored),
    ).toEqual([`${pod}.imagePullSecrets.0.name`]);
    expect(
      cronJobDifferences(desiredCronJob(plain, { ...pulling, imagePullPolicy: 'Always' }), stored),
    ).toEqual([`${pod}.containers.0.imagePullPolicy`]);
  });

  it('sees a change of the scheduler pause', () => {
    const stored = asStoredByServer(desiredCronJob(plain, context)) as V1CronJob;
    expect(cronJobDifferences(desiredCronJob(plain, { ...context, paused: true }), stored)).toEqual([
      'spec.suspend',
    ]);
  });
});

describe('quantities', () => {
  it('reads the forms of the API server', () => {
    expect(quantityValue('500m')).toBe(0.5);
    expect(quantityValue('1Gi')).toBe(2 ** 30);
    expect(quantityValue('1e3')).toBe(1000);
    expect(quantityValue('128M')).toBe(128e6);
    expect(quantityValue(2)).toBe(2);
    expect(quantityValue('lots')).toBeNaN();
  });

  it('compares amounts, not text', () => {
    expect(sameQuantity('0.5', '500m')).toBe(true);
    expect(sameQuantity('2048Mi', '2Gi')).toBe(true);
    expect(sameQuantity(1048576, '1Mi')).toBe(true);
    expect(sameQuantity('1', '1001m')).toBe(false);
    expect(sameQuantity('1Gi', '1G')).toBe(false);
  });
});
