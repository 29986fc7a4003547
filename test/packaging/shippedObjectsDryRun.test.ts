/**
 * Everything Crondeck ships, sent to an API server as `kubectl apply --dry-run=server` sends it
 * (`?dryRun=All&fieldValidation=Strict`): the CRDs of crds/, the chart rendered with its default
 * values and with each file of charts/crondeck/ci/, deploy/ as kustomize renders it, examples/,
 * and every kind of object the controller and the REST API write, built by the functions they
 * build them with and sent by their own client. Any refusal, and any Warning header, fails.
 *
 * The server is the Kubernetes API emulator, which answers as a real kube-apiserver v1.32 does
 * (test/support/kube). The CRDs of crds/ are really created first, as `kubectl apply -f crds/`
 * would, so that custom resources can be dry-run; so are the Prometheus Operator's CRDs
 * (prometheusCrds.ts), which a cluster that uses the chart's ServiceMonitor and PrometheusRule has.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { KubeConfig, type V1CronJob } from '@kubernetes/client-node';
import { ClusterClient } from '../../src/kube/clusterClient';
import { desiredCronJob } from '../../src/controller/desired/cronJob';
import { cronJobNameFor } from '../../src/kube/cronJobName';
import {
  desiredTokenSecret,
  encodedToken,
  reportTokenLocation,
} from '../../src/controller/desired/reportTokens';
import { EventRecorder } from '../../src/controller/events';
import { jobNameOfScheduledJob } from '../../src/kube/resources/names';
import type { ScheduledJob, ScheduledJobSpecInput } from '../../src/kube/resources/scheduledJob';
import { LeaderElector } from '../../src/controller/runtime/leaderElection';
import { CLEANUP_FINALIZER } from '../../src/controller/scheduledJobs/scheduledJobReconciler';
import { desiredStatus } from '../../src/controller/scheduledJobs/status';
import { type Job, jobInputSchema } from '../../src/domain/job';
import { reportTokenFor } from '../../src/domain/reportToken';
import { manualJobFromCronJob } from '../../src/runtime/kubernetes/manualRun';
import { patchOfJob, scheduledJobOfJob } from '../../src/runtime/kubernetes/scheduledJobOfJob';
import { KubeEmulator } from '../support/kube/emulator';
import { kubeConfigFor } from '../support/kube/kubeconfig';
import { createMemoryLogger } from '../support/memoryLogger';
import { type DryRunProxy, startDryRunProxy } from './dryRunProxy';
import { prometheusOperatorCrds } from './prometheusCrds';
import { validateWithPrometheusModels } from './prometheusModels';
import { ManifestClient, problemOf } from './serverDryRun';
import {
  CHART_DIR,
  REPO_ROOT,
  helmTemplate,
  kubeTools,
  kustomize,
  loadCrds,
  readObjects,
  type K8sObject,
} from './support';

/** Where objects without a namespace of their own go (examples, what the controller writes). */
const NAMESPACE = 'shipped';
/** The chart renders (support.helmTemplate) into this namespace. */
const CHART_NAMESPACE = 'jobs';
/** A cluster with the Prometheus Operator's CRDs offers this API version, so helm renders its kinds. */
const WITH_PROMETHEUS_OPERATOR = ['--api-versions', 'monitoring.coreos.com/v1'];
const CI_FILES = readdirSync(path.join(CHART_DIR, 'ci')).filter((file) => file.endsWith('.yaml'));
const EXAMPLES = path.join(REPO_ROOT, 'examples');
const SOURCE_NAMES = [
  'crds/',
  'the chart with its default values',
  ...CI_FILES.map((file) => `the chart with ci/${file}`),
  'deploy/ (kubectl kustomize deploy/)',
  'examples/',
];

interface Source {
  /** The name a failure is reported under. */
  name: string;
  objects: K8sObject[];
  /** Where its namespaced objects without a namespace go (`helm install -n`, `kubectl apply -n`). */
  namespace: string;
}

function shippedSources(): Source[] {
  const chart = (name: string, args: string[]): Source => ({
    name,
    objects: helmTemplate([...args, ...WITH_PROMETHEUS_OPERATOR]),
    namespace: CHART_NAMESPACE,
  });
  return [
    { name: 'crds/', objects: loadCrds(), namespace: NAMESPACE },
    chart('the chart with its default values', []),
    ...CI_FILES.map((file) => chart(`the chart with ci/${file}`, ['-f', path.join(CHART_DIR, 'ci', file)])),
    {
      name: 'deploy/ (kubectl kustomize deploy/)',
      objects: kustomize(path.join(REPO_ROOT, 'deploy')),
      namespace: NAMESPACE,
    },
    {
      name: 'examples/',
      objects: readdirSync(EXAMPLES)
        .filter((file) => file.endsWith('.yaml'))
        .flatMap((file) => readObjects(path.join(EXAMPLES, file))),
      namespace: NAMESPACE,
    },
  ];
}

/** CRDs and Namespaces are dry-run before anything is created (their names would be taken after). */
const createdFirst = (object: K8sObject) => ['CustomResourceDefinition', 'Namespace'].includes(object.kind);

/** ScheduledJobs as people write them: the smallest, every field, a macro with a long name. */
const SCHEDULED_JOBS: Array<{ name: string; spec: ScheduledJobSpecInput }> = [
  { name: 'minimal', spec: { schedule: '*/5 * * * *', command: 'echo hello' } },
  {
    name: 'everything',
    spec: {
      schedule: '30 2 * * 1-5',
      command: 'pg_dump "$DATABASE_URL" > /backup/db.sql && echo done',
      timeZone: 'Europe/Berlin',
      timeout: 3600,
      retry: { maxAttempts: 2, baseDelay: 60 },
      description: 'Nightly backup of the orders database',
      tags: ['backup', 'db'],
      image: 'postgres:16-alpine',
      imagePullPolicy: 'IfNotPresent',
      concurrencyPolicy: 'Replace',
      startingDeadlineSeconds: 300,
      successfulJobsHistoryLimit: 5,
      failedJobsHistoryLimit: 2,
      env: [
        { name: 'LEVEL', value: 'full' },
        { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'orders-db', key: 'url' } } },
        { name: 'BUCKET', valueFrom: { configMapKeyRef: { name: 'backup', key: 'bucket' } } },
      ],
      resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { cpu: 1, memory: '256Mi' } },
      onFailure: 'https://hooks.example.com/crondeck/failed',
      onSuccess: 'https://hooks.example.com/crondeck/ok',
      onComplete: 'http://receiver.monitoring.svc:8080/crondeck',
      onFailureEmail: 'ops@example.com, oncall@example.com',
      onSuccessEmail: 'team@example.com',
      onCompleteEmail: 'audit@example.com',
    },
  },
  {
    name: 'a-daily-job-whose-name-is-longer-than-a-cronjob-name-may-be',
    spec: { schedule: '@daily', command: 'true', suspend: true, concurrencyPolicy: 'Allow' },
  },
];

/** A job as the REST API holds it; its name is no resource name, so the resource's is derived. */
function apiJob(id: number): Job {
  const input = jobInputSchema.parse({
    name: 'Nightly_Report',
    schedule: '0 6 * * *',
    command: 'report --since yesterday',
    timezone: 'America/New_York',
    timeout: 600,
    retry: { maxAttempts: 1, baseDelay: 30 },
    description: 'Sends the report',
    tags: ['reports'],
  });
  const at = new Date('2026-11-20T06:00:00Z');
  return {
    ...input,
    id,
    createdAt: at,
    updatedAt: at,
    lastRun: at,
    lastStatus: 'success',
    suspendedReason: null,
    suspendedAt: null,
  };
}

/** A dry-run write whose refusal the proxy records: it does not keep the others from being sent. */
async function attempt(write: Promise<unknown>): Promise<void> {
  await write.catch(() => undefined);
}

function kubeConfigAt(server: string, token: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'dry-run', server, skipTLSVerify: true }],
    users: [{ name: 'admin', token }],
    contexts: [{ name: 'dry-run', cluster: 'dry-run', user: 'admin' }],
    currentContext: 'dry-run',
  });
  return kc;
}

describe('everything Crondeck ships passes a server-side dry run', () => {
  let emu: KubeEmulator;
  let client: ManifestClient;
  const sources = new Map<string, Source>();
  /** Problems found before the CRDs were installed, by source. */
  const earlyProblems = new Map<string, string[]>();

  beforeAll(async () => {
    kubeTools();
    emu = await KubeEmulator.start();
    client = new ManifestClient(emu.url, emu.adminToken);
    for (const source of shippedSources()) sources.set(source.name, source);

    for (const { name, objects, namespace } of sources.values()) {
      const problems: string[] = [];
      for (const object of objects.filter(createdFirst)) {
        const problem = problemOf(object, await client.create(object, namespace, true));
        if (problem) problems.push(problem);
      }
      earlyProblems.set(name, problems);
    }
    // `kubectl apply -f crds/` (a refusal is reported with crds/), and the Prometheus Operator's CRDs.
    for (const crd of loadCrds()) {
      const problem = problemOf(crd, await client.create(crd, NAMESPACE, false));
      if (problem) earlyProblems.get('crds/')!.push(`installing ${problem}`);
    }
    for (const crd of prometheusOperatorCrds() as K8sObject[]) {
      const problem = problemOf(crd, await client.create(crd, NAMESPACE, false));
      if (problem) throw new Error(`the Prometheus Operator's CRDs could not be installed: ${problem}`);
    }
    const namespaces = new Set([NAMESPACE, CHART_NAMESPACE]);
    for (const { objects } of sources.values()) {
      for (const object of objects) if (object.metadata.namespace) namespaces.add(object.metadata.namespace);
    }
    for (const name of namespaces) {
      await client.request('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
    }
  }, 120_000);

  afterAll(() => emu?.stop());

  it('covers every source and the kinds they hold', () => {
    const kinds = new Set(
      [...sources.values()].flatMap(({ objects }) =>
        objects.map((object) => `${object.apiVersion} ${object.kind}`),
      ),
    );
    expect([...sources.keys()]).toEqual(SOURCE_NAMES);
    for (const kind of [
      'apiextensions.k8s.io/v1 CustomResourceDefinition',
      'apps/v1 Deployment',
      'apps/v1 StatefulSet',
      'monitoring.coreos.com/v1 ServiceMonitor',
      'monitoring.coreos.com/v1 PrometheusRule',
      'networking.k8s.io/v1 Ingress',
      'crondeck.dev/v1alpha1 ScheduledJob',
      'crondeck.dev/v1alpha1 AlertConfig',
    ]) {
      expect(kinds).toContain(kind);
    }
  });

  it.each(SOURCE_NAMES)('%s', async (name) => {
    const { objects, namespace } = sources.get(name)!;
    const problems = [...earlyProblems.get(name)!];
    for (const object of objects.filter((candidate) => !createdFirst(candidate))) {
      const problem = problemOf(object, await client.create(object, namespace, true));
      if (problem) problems.push(problem);
    }
    const models = validateWithPrometheusModels(objects);
    objects.forEach((object, i) => {
      for (const problem of models[i]!) problems.push(`${object.kind}/${object.metadata.name}: ${problem}`);
    });
    expect(problems).toEqual([]);
  });

  describe('what the controller and the REST API write', () => {
    let proxy: DryRunProxy;
    let dryRun: ClusterClient;
    let direct: ClusterClient;
    const logger = createMemoryLogger();

    beforeAll(async () => {
      proxy = await startDryRunProxy(emu.url);
      dryRun = new ClusterClient(kubeConfigAt(proxy.url, emu.adminToken), logger);
      direct = new ClusterClient(kubeConfigFor(emu), logger);
    });
    afterAll(() => proxy?.stop());

    it('is accepted without a warning, kind by kind', async () => {
      const now = new Date('2026-11-25T10:00:00Z');
      const reportSecret = 'a-report-secret-of-at-least-32-characters';
      const api = apiJob(40);

      // The REST API creates and changes ScheduledJobs; people apply theirs.
      await attempt(dryRun.createScheduledJob(NAMESPACE, scheduledJobOfJob(api, NAMESPACE)));
      await direct.createScheduledJob(NAMESPACE, scheduledJobOfJob(api, NAMESPACE));
      const manifests = SCHEDULED_JOBS.map(({ name, spec }) => ({
        apiVersion: 'crondeck.dev/v1alpha1',
        kind: 'ScheduledJob',
        metadata: { name, namespace: NAMESPACE },
        spec,
      }));
      for (const manifest of manifests) {
        await attempt(dryRun.createScheduledJob(NAMESPACE, manifest));
        await direct.createScheduledJob(NAMESPACE, manifest);
      }
      const apiName = scheduledJobOfJob(api, NAMESPACE).metadata.name!;
      await attempt(
        dryRun.patchScheduledJob(NAMESPACE, apiName, patchOfJob({ ...api, enabled: false }, apiName)),
      );

      const stored: ScheduledJob[] = [];
      for (const name of [apiName, ...SCHEDULED_JOBS.map((job) => job.name)]) {
        stored.push(await direct.getScheduledJob(NAMESPACE, name));
      }
      const events = new EventRecorder(dryRun.core, 'crondeck-controller', 'controller-0', logger);

      for (const [index, resource] of stored.entries()) {
        const { name = '', resourceVersion } = resource.metadata;
        const jobId = index === 0 ? api.id : index + 1;
        // The finalizer, the CronJob (created, brought in line, suspended by a pause), a run now.
        await attempt(
          dryRun.patchScheduledJob(NAMESPACE, name, {
            metadata: { finalizers: [CLEANUP_FINALIZER], resourceVersion },
          }),
        );
        const context = {
          jobId,
          jobName: jobNameOfScheduledJob(resource.metadata),
          image: 'ghcr.io/crondeck/crondeck:0.1.0',
          reportUrl: 'http://crondeck.crondeck.svc:7433',
          paused: false,
          defaultTimeZone: 'Europe/Berlin',
        };
        const cronJob = desiredCronJob(resource, context);
        await attempt(dryRun.createCronJob(NAMESPACE, cronJob));
        const created: V1CronJob = await direct.createCronJob(NAMESPACE, cronJob);
        const cronJobName = cronJobNameFor(name);
        await attempt(
          dryRun.replaceCronJob(NAMESPACE, cronJobName, {
            ...desiredCronJob(resource, { ...context, paused: true }),
            metadata: { ...cronJob.metadata, resourceVersion: created.metadata?.resourceVersion },
          }),
        );
        await attempt(dryRun.patchCronJob(NAMESPACE, cronJobName, { spec: { suspend: true } }));
        await attempt(dryRun.createJob(NAMESPACE, manualJobFromCronJob(created)));
        // Its status, ready and refused, and the events of a refusal and an update.
        await attempt(
          dryRun.patchScheduledJobStatus(
            NAMESPACE,
            name,
            desiredStatus(
              resource,
              {
                jobId,
                nextRun: new Date('2026-11-26T02:30:00Z'),
                lastRun: now,
                lastStatus: 'failed',
                lastFailure: {
                  at: now,
                  reason: { code: 'OOMKilled', message: 'container "run" reached its memory limit of 64Mi' },
                },
              },
              { ready: true, reason: 'Reconciled', message: 'the CronJob is in place' },
              now,
            ),
          ),
        );
        await attempt(
          dryRun.patchScheduledJobStatus(NAMESPACE, name, {
            ...desiredStatus(
              resource,
              { jobId: null, nextRun: null, lastRun: null, lastStatus: null, lastFailure: null },
              { ready: false, reason: 'InvalidSpec', message: 'spec.schedule: the day never comes' },
              now,
            ),
            nextRun: null,
          }),
        );
        await events.record(resource, 'Warning', 'InvalidSpec', 'spec.schedule: the day never comes');
        await events.record(resource, 'Normal', 'CronJobUpdated', `brought CronJob ${cronJobName} in line`);
      }

      // The report tokens' shared Secret: created with a key, then keys added and removed.
      const { secretName, key } = reportTokenLocation(api.id);
      const token = desiredTokenSecret(NAMESPACE, secretName, {
        [key]: encodedToken(reportTokenFor(reportSecret, api.id)),
      });
      await attempt(dryRun.createSecret(NAMESPACE, token));
      await direct.createSecret(NAMESPACE, token);
      await attempt(
        dryRun.patchSecret(NAMESPACE, secretName, {
          data: { [reportTokenLocation(2).key]: encodedToken(reportTokenFor(reportSecret, 2)), [key]: null },
        }),
      );

      // The leader's Lease: taken when there is none, then renewed.
      const elector = (leases: ClusterClient['coordination']) =>
        new LeaderElector(
          { leases, namespace: NAMESPACE, name: 'crondeck-controller', identity: 'controller-0', logger },
          { onStartedLeading: () => undefined, onStoppedLeading: () => undefined },
        );
      await attempt(elector(dryRun.coordination).tryAcquireOrRenew());
      await elector(direct.coordination).tryAcquireOrRenew();
      await attempt(elector(dryRun.coordination).tryAcquireOrRenew());

      // A job deleted through the API.
      await attempt(dryRun.deleteScheduledJob(NAMESPACE, apiName));

      const refused = proxy.writes.filter((write) => write.status >= 300 || write.warnings.length > 0);
      expect(refused).toEqual([]);
      expect(logger.lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
      // Every kind of write was made (a path names the collection, then the object and a subresource).
      const kindsOfWrite = new Set(
        proxy.writes.map(({ method, path: written }) => {
          const [, resource, , , subresource] = /\/namespaces\/[^/]+\/([^/]+)(\/([^/]+)\/?([^/]*))?/.exec(
            written,
          )!;
          return `${method} ${resource}${subresource ? `/${subresource}` : ''}`;
        }),
      );
      expect([...kindsOfWrite].sort()).toEqual(
        [
          'POST scheduledjobs',
          'PATCH scheduledjobs',
          'PATCH scheduledjobs/status',
          'DELETE scheduledjobs',
          'POST cronjobs',
          'PUT cronjobs',
          'PATCH cronjobs',
          'POST jobs',
          'POST events',
          'POST secrets',
          'PATCH secrets',
          'POST leases',
          'PUT leases',
        ].sort(),
      );
    });
  });
});
