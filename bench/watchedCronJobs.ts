/**
 * The controller's resident memory watching plain CronJobs among their Jobs (issue 40), for the
 * probe `bench/probes/watchedCronJobsMemory.ts` and the bench's `watched` scenario. The Kubernetes
 * API emulator (test/support/kube/) runs in this process; `crondeck controller` runs from `dist/`
 * (`npm run build` first) as the image and the chart start it (its node flags: shippedStart.ts), in
 * a process of its own, on a database of its own. Four moments: the controller on an empty
 * namespace; once the cluster holds the CronJobs (each with its finished Jobs, the pods of the last
 * 3), before any CronJobWatch; once a CronJobWatch that selects none of them has the namespace
 * watched (every Job and pod cached, none recorded); and once a second one selects every CronJob
 * and every Job's run is recorded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { crondeckCrds } from '../src/controller/crds/definitions';
import { KubeEmulator } from '../test/support/kube/emulator';
import { kubeConfigFor } from '../test/support/kube/kubeconfig';
import { REPO_ROOT } from './harness';
import { shippedStart } from './shippedStart';

export const NAMESPACE = 'platform';
/** The pods of each CronJob's last Jobs that the cluster keeps (the others' went with history). */
export const PODS_KEPT = 3;
const MINUTE = 60_000;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** CronJobs labelled watched=yes, each with its finished Jobs (as history limits keep them) and the last ones' pods. */
export function seedCluster(emu: KubeEmulator, cronJobCount: number, jobsPerCronJob: number): void {
  const base = Math.floor(Date.now() / MINUTE) * MINUTE - jobsPerCronJob * 60 * MINUTE;
  for (let c = 0; c < cronJobCount; c++) {
    const name = `task-${c}`;
    const cronJob = emu.seed(emu.typeByName('batch/cronjobs'), {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name, namespace: NAMESPACE, labels: { watched: 'yes', team: `team-${c % 20}` } },
      spec: {
        schedule: `${c % 60} * * * *`,
        timeZone: 'UTC',
        successfulJobsHistoryLimit: jobsPerCronJob,
        jobTemplate: {
          spec: {
            backoffLimit: 0,
            template: {
              spec: {
                restartPolicy: 'Never',
                containers: [
                  {
                    name: 'main',
                    image: 'registry.example/tools:1.4',
                    command: ['sh', '-c', `run-task ${c}`],
                  },
                ],
              },
            },
          },
        },
      },
    });
    for (let j = 0; j < jobsPerCronJob; j++) {
      const fired = new Date(base + j * 60 * MINUTE + (c % 60) * MINUTE);
      const ended = new Date(fired.getTime() + 30_000);
      const jobName = `${name}-${Math.floor(fired.getTime() / MINUTE)}`;
      const job = emu.seed(emu.typeByName('batch/jobs'), {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name: jobName,
          namespace: NAMESPACE,
          annotations: { 'batch.kubernetes.io/cronjob-scheduled-timestamp': fired.toISOString() },
          ownerReferences: [
            { apiVersion: 'batch/v1', kind: 'CronJob', name, uid: cronJob.metadata.uid, controller: true },
          ],
        },
        spec: { ...cronJob.spec.jobTemplate.spec },
      });
      // Status is the Job controller's (a create drops it): written as it writes it.
      emu.store.put(
        'batch/jobs',
        {
          ...job,
          status: {
            startTime: fired.toISOString(),
            completionTime: ended.toISOString(),
            succeeded: 1,
            conditions: [
              {
                type: 'SuccessCriteriaMet',
                status: 'True',
                reason: 'CompletionsReached',
                lastTransitionTime: ended.toISOString(),
              },
              {
                type: 'Complete',
                status: 'True',
                reason: 'CompletionsReached',
                lastTransitionTime: ended.toISOString(),
              },
            ],
          },
        },
        'MODIFIED',
      );
      if (j < jobsPerCronJob - PODS_KEPT) continue;
      const pod = emu.seed(emu.typeByName('pods'), {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `${jobName}-x${j}`,
          namespace: NAMESPACE,
          labels: {
            'batch.kubernetes.io/controller-uid': job.metadata.uid,
            'batch.kubernetes.io/job-name': jobName,
          },
          ownerReferences: [
            { apiVersion: 'batch/v1', kind: 'Job', name: jobName, uid: job.metadata.uid, controller: true },
          ],
        },
        spec: { ...cronJob.spec.jobTemplate.spec.template.spec },
      });
      emu.store.put(
        '/pods',
        {
          ...pod,
          status: {
            phase: 'Succeeded',
            startTime: fired.toISOString(),
            containerStatuses: [
              {
                name: 'main',
                image: 'registry.example/tools:1.4',
                imageID: '',
                ready: false,
                restartCount: 0,
                state: {
                  terminated: {
                    exitCode: 0,
                    reason: 'Completed',
                    startedAt: fired.toISOString(),
                    finishedAt: ended.toISOString(),
                  },
                },
              },
            ],
          },
        },
        'MODIFIED',
      );
    }
  }
}

interface Controller {
  memory(): { rss: number; peak: number };
  stop(): Promise<void>;
}

async function startController(env: Record<string, string>): Promise<Controller> {
  const port = await freePort();
  const shipped = shippedStart('controller');
  const cli = join(REPO_ROOT, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: npm run build first');
  const child: ChildProcess = spawn(shipped.node, [...shipped.nodeArgs, cli, 'controller'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      ...shipped.env,
      ...env,
      CRONDECK_HEALTH_PORT: String(port),
      POD_NAME: 'probe',
      SERVICE_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`the controller exited (${child.exitCode})`);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.json() as Promise<Obj>,
        () => null,
      );
      return health?.leader === true;
    },
    60_000,
    'the controller to start',
  );
  const memory = () => {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  };
  return {
    memory,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Waits until the controller's memory stops growing (its caches filled): 3 s without 1 MB more. */
async function waitForQuiet(controller: Controller, what: string): Promise<void> {
  let last = controller.memory().rss;
  let quiet = 0;
  const deadline = Date.now() + 5 * MINUTE;
  while (quiet < 3) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(1000);
    const now = controller.memory().rss;
    quiet = now - last < 1024 * 1024 ? quiet + 1 : 0;
    last = now;
  }
}

async function installCrds(emu: KubeEmulator): Promise<void> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${emu.adminToken}` };
  for (const crd of crondeckCrds()) {
    const response = await fetch(`${emu.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      method: 'POST',
      headers,
      body: JSON.stringify(crd),
    });
    if (response.status !== 201) throw new Error(`CRD refused: ${response.status}`);
  }
  await fetch(`${emu.url}/api/v1/namespaces`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ metadata: { name: NAMESPACE } }),
  });
  await until(
    async () =>
      (
        await fetch(`${emu.url}/apis/crondeck.dev/v1alpha1/namespaces/${NAMESPACE}/cronjobwatches`, {
          headers,
        })
      ).status === 200,
    30_000,
    'the CRDs established',
  );
}

interface Memory {
  rss: number;
  peak: number;
}

export interface WatchedCronJobsMeasure {
  cronJobs: number;
  jobs: number;
  pods: number;
  empty: Memory;
  seeded: Memory;
  /** The namespace watched, its CronJobs unselected: what its Jobs and pods cost in the caches. */
  selectedNone: Memory;
  watched: Memory;
  /** From the CronJobWatch's creation until every run was recorded. */
  recordedInMs: number;
}

/** Measures it on a fresh database of the PostgreSQL server at `databaseUrl`. */
export async function measureWatchedCronJobs(options: {
  databaseUrl: string;
  cronJobs: number;
  jobsPerCronJob: number;
  log: (line: string) => void;
}): Promise<WatchedCronJobsMeasure> {
  const { databaseUrl, cronJobs: cronJobCount, jobsPerCronJob, log } = options;
  const emu = await KubeEmulator.start();
  let controller: Controller | undefined;
  try {
    await installCrds(emu);
    const dir = mkdtempSync(join(tmpdir(), 'crondeck-watch-probe-'));
    const kubeconfig = join(dir, 'kubeconfig.yaml');
    writeFileSync(kubeconfig, kubeConfigFor(emu).exportConfig());
    controller = await startController({
      KUBECONFIG: kubeconfig,
      POD_NAMESPACE: NAMESPACE,
      DATABASE_URL: databaseUrl,
      SERVICE_REPORT_SECRET: randomBytes(24).toString('hex'),
      CRONDECK_REPORT_URL: 'http://127.0.0.1:1',
      CRONDECK_LEADER_ELECTION: 'false',
    });
    await sleep(3000);
    const empty = controller.memory();
    log('the controller on an empty namespace');

    const seededAt = performance.now();
    seedCluster(emu, cronJobCount, jobsPerCronJob);
    await waitForQuiet(controller, 'the caches to fill');
    const seeded = controller.memory();
    log(`seeded in ${Math.round(performance.now() - seededAt)} ms; watching the namespace`);
    emu.seed(emu.typeByName('crondeck.dev/cronjobwatches'), {
      apiVersion: 'crondeck.dev/v1alpha1',
      kind: 'CronJobWatch',
      metadata: { name: 'none-of-them', namespace: NAMESPACE },
      spec: { names: ['not-a-cronjob-here'] },
    });
    await until(
      async () =>
        emu.watchesOpen().some((watch) => watch.resource === 'pods' && watch.namespace === NAMESPACE),
      MINUTE,
      'the namespace’s pods watched',
    );
    await waitForQuiet(controller, 'the namespace’s caches to fill');
    const selectedNone = controller.memory();
    log('the namespace watched, none selected; selecting them all');
    const watchedAt = performance.now();
    emu.seed(emu.typeByName('crondeck.dev/cronjobwatches'), {
      apiVersion: 'crondeck.dev/v1alpha1',
      kind: 'CronJobWatch',
      metadata: { name: 'everything', namespace: NAMESPACE },
      spec: { selector: { matchLabels: { watched: 'yes' } } },
    });
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
      await until(
        async () =>
          (await count('SELECT count(*) AS n FROM jobs WHERE cron_job_name IS NOT NULL')) === cronJobCount,
        10 * MINUTE,
        'every CronJob a job',
      );
      const runs = cronJobCount * jobsPerCronJob;
      let recorded = 0;
      await until(
        async () => (recorded = await count('SELECT count(*) AS n FROM executions')) >= runs,
        30 * MINUTE,
        () => `${runs} runs recorded (${recorded} so far)`,
      );
    } finally {
      await db.end();
    }
    const watched = controller.memory();
    return {
      cronJobs: cronJobCount,
      jobs: cronJobCount * jobsPerCronJob,
      pods: cronJobCount * PODS_KEPT,
      empty,
      seeded,
      selectedNone,
      watched,
      recordedInMs: performance.now() - watchedAt,
    };
  } finally {
    await controller?.stop();
    await emu.stop();
  }
}

/** A new database on the PostgreSQL server at `serverUrl`; its URL. */
export async function freshDatabase(serverUrl: string): Promise<string> {
  const name = `crondeck_watch_probe_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(
  check: () => Promise<boolean>,
  ms: number,
  what: string | (() => string),
): Promise<void> {
  const describe = () => (typeof what === 'string' ? what : what());
  const deadline = Date.now() + ms;
  let noted = Date.now();
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${describe()}`);
    if (Date.now() - noted > 15_000) {
      process.stdout.write(`  waiting for ${describe()}\n`);
      noted = Date.now();
    }
    await sleep(500);
  }
}
