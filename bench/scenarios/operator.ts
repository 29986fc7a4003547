/**
 * The operator at scale, against the Kubernetes API emulator (test/support/kube/) in this process:
 * N ScheduledJobs (5,000; BENCH_OPERATOR_OBJECTS) created at once as `kubectl apply` would, with
 * `crondeck controller` and `crondeck serve` (Kubernetes mode) as processes of their own on a
 * database of their own. Measured: the time until every one is Ready, the API requests per
 * object by verb and resource (counted by the emulator), the writes over a resync once converged,
 * the controller's memory, and the reports per second the service records.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { parse } from 'yaml';
import { KubeEmulator } from '../../test/support/kube/emulator';
import { kubeConfigFor } from '../../test/support/kube/kubeconfig';
import {
  type BenchContext,
  formatMegabytes,
  formatNumber,
  freePort,
  fromBuild,
  LOAD_SECONDS,
  markdownTable,
  REPO_ROOT,
  sleep,
  startCeilings,
  stopChild,
  track,
  WORK_DIR,
} from '../harness';
import { describeShippedStart, shippedStart, startShippedService } from '../shippedStart';

const OBJECTS = Number(process.env.BENCH_OPERATOR_OBJECTS ?? 5000);
const NAMESPACE = 'bench';
const REPORT_SECRET = 'a-bench-report-secret-of-32-characters-or-more';
const RESYNC_SECONDS = 90;
const CREATES_IN_FLIGHT = 32;
/** Extra node flags for the controller process (e.g. `--heapsnapshot-signal=SIGUSR2`). */
const CONTROLLER_NODE_ARGS = (process.env.BENCH_CONTROLLER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const BARS = {
  writesPerObject: 3,
  resyncWrites: 0,
  controllerRssBytes: 200 * 1024 * 1024,
  deletedPerSec: 100,
  reportsPerSec: 500,
};

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function run(ctx: BenchContext): Promise<void> {
  const databaseUrl = await ctx.freshDatabase('crondeck_operator');
  const emu = await KubeEmulator.start();
  const processes: { stop(): Promise<void> }[] = [];
  try {
    await installCrds(emu);
    const kubeconfig = join(WORK_DIR, 'operator-kubeconfig.yaml');
    mkdirSync(WORK_DIR, { recursive: true });
    writeFileSync(kubeconfig, kubeConfigFor(emu).exportConfig());
    const cluster = {
      KUBECONFIG: kubeconfig,
      POD_NAMESPACE: NAMESPACE,
      SERVICE_REPORT_SECRET: REPORT_SECRET,
    };

    console.log('  the service in Kubernetes mode, and the controller');
    const service = await startShippedService({
      databaseUrl,
      name: 'service-kubernetes',
      env: { ...cluster, SERVICE_RUNTIME: 'kubernetes' },
    });
    processes.push(service);
    const controller = await startControllerProcess({
      ...cluster,
      DATABASE_URL: databaseUrl,
      CRONDECK_REPORT_URL: service.url,
      CRONDECK_RESYNC_SECONDS: String(RESYNC_SECONDS),
    });
    processes.push(controller);

    await sleep(2000);
    const rssIdle = memoryOf(controller.pid);
    console.log(`  creating ${formatNumber(OBJECTS)} ScheduledJobs at once`);
    emu.resetRequestCounts();
    const started = performance.now();
    await createScheduledJobs(emu, OBJECTS);
    const createdMs = performance.now() - started;
    await until(
      () => readyCount(emu) === OBJECTS,
      15 * 60_000,
      () => `${readyCount(emu)} of ${OBJECTS} Ready`,
    );
    const convergedMs = performance.now() - started;
    await settled(emu);
    const convergence = emu.requestCounts();
    const rssAtConvergence = memoryOf(controller.pid);

    console.log('  a resync in steady state');
    emu.resetRequestCounts();
    const reconcilesBefore = await reconciles(controller.healthUrl);
    await until(
      async () => (await reconciles(controller.healthUrl)) >= reconcilesBefore + OBJECTS,
      (RESYNC_SECONDS + 120) * 1000,
      () => 'a resync of every ScheduledJob',
    );
    await settled(emu);
    const resync = emu.requestCounts();
    const rssAfterResync = memoryOf(controller.pid);

    console.log('  report ingest');
    const ingest = await measureReportIngest(service.url, databaseUrl);

    console.log(`  deleting the ${formatNumber(OBJECTS)} ScheduledJobs at once`);
    const deletionStarted = performance.now();
    await deleteScheduledJobs(emu, OBJECTS);
    await until(
      () => emu.objects('scheduledjobs', NAMESPACE).length === 0,
      15 * 60_000,
      () => `${emu.objects('scheduledjobs', NAMESPACE).length} ScheduledJobs left`,
      1000,
    );
    const deletionMs = performance.now() - deletionStarted;
    const deletedPerSec = OBJECTS / (deletionMs / 1000);
    const rssAfterDeletion = memoryOf(controller.pid);

    const perObject = (count: number) => (count / OBJECTS).toFixed(2);
    const writes = (counts: Record<string, number>) => writeCounts(counts, { createdByBench: OBJECTS });
    const convergenceWrites = writes(convergence);
    const resyncWrites = writes(resync);
    const controllerRss = Math.max(rssAtConvergence.rss, rssAfterResync.rss);

    ctx.bar({
      measure: `writes per new ScheduledJob (${formatNumber(OBJECTS)} created at once)`,
      target: `≤ ${BARS.writesPerObject} of its own; shared batches apart`,
      measured:
        `${perObject(convergenceWrites.total)} (its own ${perObject(convergenceWrites.own)}, ` +
        `shared token Secrets ${perObject(convergenceWrites.shared)})`,
      met: convergenceWrites.own / OBJECTS <= BARS.writesPerObject,
    });
    ctx.bar({
      measure: 'writes over a resync in steady state',
      target: `${BARS.resyncWrites}`,
      measured: String(resyncWrites.total),
      met: resyncWrites.total === BARS.resyncWrites,
    });
    ctx.bar({
      measure: 'controller RSS (highest seen after convergence and after the resync)',
      target: `≤ ${formatMegabytes(BARS.controllerRssBytes)}`,
      measured: formatMegabytes(controllerRss),
      met: controllerRss <= BARS.controllerRssBytes,
    });
    ctx.bar({
      measure: `ScheduledJobs deleted per second (${formatNumber(OBJECTS)} deleted at once, until every one is gone)`,
      target: `≥ ${BARS.deletedPerSec}`,
      measured: formatNumber(deletedPerSec),
      met: deletedPerSec >= BARS.deletedPerSec,
    });
    ctx.bar({
      measure: `reports recorded per second (${INGEST_CONNECTIONS} in flight)`,
      target: `≥ ${BARS.reportsPerSec}`,
      measured: formatNumber(ingest.recordedPerSec),
      met: ingest.recordedPerSec >= BARS.reportsPerSec && ingest.lost === 0 && ingest.doubled === 0,
    });

    ctx.report(
      `Operator: ${formatNumber(OBJECTS)} ScheduledJobs to Ready`,
      [
        `${formatNumber(OBJECTS)} ScheduledJobs created through the API as \`kubectl apply -f\` creates them (with its ` +
          `\`${LAST_APPLIED}\` annotation), ${CREATES_IN_FLIGHT} requests in flight ` +
          `(all sent in ${(createdMs / 1000).toFixed(1)} s), each with its own schedule (none due while the bench runs), one in five in a time zone, ` +
          'one in ten with a webhook shortcut. `crondeck controller` (a process of its own, leader election on, ' +
          `started as the image and the chart start it: ${describeShippedStart('controller', 'controller')}` +
          `${describeChartControllerEnv()}) ` +
          `watches the namespace; Ready means Ready=True with observedGeneration = generation.`,
        '',
        markdownTable(
          ['measure', 'value'],
          [
            ['time from the first create to every one Ready', `${(convergedMs / 1000).toFixed(1)} s`],
            ['objects Ready per second', formatNumber(OBJECTS / (convergedMs / 1000))],
            [
              'writes per object (finalizer, CronJob, status, shared token Secret, events)',
              `${perObject(convergenceWrites.total)} (its own ${perObject(convergenceWrites.own)})`,
            ],
            [
              'Lease writes during convergence (leader election, not per object)',
              String(convergenceWrites.leases),
            ],
            [
              'controller RSS after convergence (peak)',
              `${formatMegabytes(rssAtConvergence.rss)} (${formatMegabytes(rssAtConvergence.peak)})`,
            ],
          ],
        ),
        '',
        'API requests of the controller during convergence, per object (the bench’s own creates left out):',
        '',
        requestsTable(convergence, OBJECTS, { createdByBench: OBJECTS }),
        '',
        `Over a resync of every object (period ${RESYNC_SECONDS} s) once converged: ` +
          `${resyncWrites.total} writes to objects, ${resyncWrites.leases} Lease renewals; ` +
          `controller RSS after it ${formatMegabytes(rssAfterResync.rss)} (peak ${formatMegabytes(rssAfterResync.peak)}).`,
        '',
        requestsTable(resync, 1, {}),
        '',
        `Then, after the report ingest below, every ScheduledJob deleted at once (${CREATES_IN_FLIGHT} requests in ` +
          `flight): all gone (finalizer removed, job rows and token keys removed) ${(deletionMs / 1000).toFixed(1)} s ` +
          `after the first delete, ${formatNumber(deletedPerSec)} per second; controller RSS after it ` +
          `${formatMegabytes(rssAfterDeletion.rss)} (peak over the whole run ${formatMegabytes(rssAfterDeletion.peak)}). ` +
          `The controller held ${formatMegabytes(rssIdle.rss)} idle before the creates: ` +
          `${((controllerRss - rssIdle.rss) / OBJECTS / 1024).toFixed(1)} KB per ScheduledJob at the highest RSS ` +
          'after convergence (what the chart and deploy/ size the limit by).',
      ].join('\n'),
    );
    ctx.report(
      'Operator: report ingest',
      [
        `Pods' reports, \`POST /api/jobs/:id/reports\`, spread over ${INGEST_JOBS} jobs with their tokens, each a final ` +
          `attempt of a run of its own (a new pod and run uid per request), ${INGEST_CONNECTIONS} connections for ` +
          `${LOAD_SECONDS} s, against \`crondeck serve\` in Kubernetes mode; then the rows counted in the database. ` +
          'The Express ceiling answers the same POST with the same bytes.',
        '',
        markdownTable(
          ['measure', 'value'],
          [
            ['reports answered 2xx while measured', formatNumber(ingest.accepted)],
            ['executions recorded (with the ones in flight at the end)', formatNumber(ingest.rows)],
            [
              'lost (answered 2xx, no row) / recorded twice (rows of one key)',
              `${ingest.lost} / ${ingest.doubled}`,
            ],
            ['recorded per second', formatNumber(ingest.recordedPerSec)],
            ['p50 / p99 ms', `${ingest.p50Ms.toFixed(2)} / ${ingest.p99Ms.toFixed(2)}`],
            ['Express ceiling, same POST: requests per second', formatNumber(ingest.ceilingPerSec)],
            ['× Express', (ingest.recordedPerSec / ingest.ceilingPerSec).toFixed(2)],
          ],
        ),
      ].join('\n'),
    );
  } finally {
    for (const each of processes.reverse()) await each.stop();
    await emu.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// The cluster and the processes

/** The checked-in CRDs, sent as `kubectl apply -f crds/` sends them (raw JSON). */
async function installCrds(emu: KubeEmulator): Promise<void> {
  const dir = join(REPO_ROOT, 'crds');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.crondeck.dev.yaml'))) {
    await call(
      emu,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      parse(readFileSync(join(dir, file), 'utf8')),
    );
  }
  await call(emu, 'POST', '/api/v1/namespaces', { metadata: { name: NAMESPACE } });
  await until(
    async () => (await fetch(`${emu.url}${scheduledJobsPath()}`, { headers: auth(emu) })).status === 200,
    10_000,
    () => 'the CRDs established',
  );
}

interface ControllerProcess {
  pid: number;
  healthUrl: string;
  stop(): Promise<void>;
}

/** The chart's default `controller.extraEnv` (literal values only): the controller's pod has them. */
function chartControllerEnv(): Record<string, string> {
  const values = parse(readFileSync(join(REPO_ROOT, 'charts', 'crondeck', 'values.yaml'), 'utf8')) as {
    controller: { extraEnv?: { name: string; value?: string }[] };
  };
  const env: Record<string, string> = {};
  for (const variable of values.controller.extraEnv ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
  }
  return env;
}

function describeChartControllerEnv(): string {
  const variables = Object.entries(chartControllerEnv()).map(([name, value]) => `\`${name}=${value}\``);
  return variables.length > 0 ? `, with the chart's \`controller.extraEnv\` (${variables.join(', ')})` : '';
}

async function startControllerProcess(env: Record<string, string>): Promise<ControllerProcess> {
  const port = await freePort();
  const log = openSync(join(WORK_DIR, 'logs', 'controller.log'), 'a');
  const shipped = shippedStart('controller');
  const cli = join(REPO_ROOT, 'dist', 'cli.js');
  const child: ChildProcess = track(
    spawn(shipped.node, [...shipped.nodeArgs, ...CONTROLLER_NODE_ARGS, cli, 'controller'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        ...shipped.env,
        ...chartControllerEnv(),
        ...env,
        CRONDECK_HEALTH_PORT: String(port),
        POD_NAME: 'crondeck-controller-bench',
        SERVICE_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', log, log],
    }),
  );
  const healthUrl = `http://127.0.0.1:${port}`;
  await until(
    async () => {
      if (child.exitCode !== null)
        throw new Error(`the controller exited (${child.exitCode}); see .bench/logs/controller.log`);
      const health = await fetch(`${healthUrl}/healthz`).then(
        (r) => r.json() as Promise<Obj>,
        () => null,
      );
      return health?.leader === true;
    },
    30_000,
    () => 'the controller to lead',
  );
  return { pid: child.pid!, healthUrl, stop: () => stopChild(child) };
}

const scheduledJobsPath = () => `/apis/crondeck.dev/v1alpha1/namespaces/${NAMESPACE}/scheduledjobs`;
const auth = (emu: KubeEmulator) => ({ authorization: `Bearer ${emu.adminToken}` });

async function call(emu: KubeEmulator, method: string, path: string, body: unknown): Promise<void> {
  const send = () =>
    fetch(`${emu.url}${path}`, {
      method,
      headers: { ...auth(emu), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  // A connection the emulator (in this process, busy) dropped fails the request: send it again.
  let response: Response | undefined;
  for (let attempt = 1; !response; attempt++) {
    try {
      response = await send();
    } catch (error) {
      if (attempt === 5) throw error;
      console.log(`    ${method} ${path}: ${String((error as Error).cause ?? error)}; sending it again`);
      await sleep(200 * attempt);
    }
  }
  if (response.status >= 300)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

/**
 * A month six months away: no job fires while the bench runs. A fire time that passes changes the
 * job's `status.nextRun`, which is a write the resync is right to make, but not steady state.
 */
const QUIET_MONTH = ((new Date().getUTCMonth() + 6) % 12) + 1;

/** ScheduledJobs as a team writes them: spread schedules, some time zones, some alerts. */
function scheduledJob(i: number): Obj {
  const object = {
    apiVersion: 'crondeck.dev/v1alpha1',
    kind: 'ScheduledJob',
    metadata: { name: `job-${String(i).padStart(5, '0')}`, namespace: NAMESPACE },
    spec: {
      schedule: `${i % 60} ${Math.floor(i / 60) % 24} ${1 + (i % 28)} ${QUIET_MONTH} *`,
      command: `echo job ${i}`,
      timeout: 600,
      ...(i % 5 === 0 ? { timeZone: 'Europe/Berlin' } : {}),
      ...(i % 10 === 0 ? { onFailure: 'https://hooks.example.com/crondeck' } : {}),
      ...(i % 3 === 0 ? { retry: { maxAttempts: 2, baseDelay: 30 } } : {}),
    },
  };
  // As `kubectl apply -f` (client-side, its default) creates it: with its copy of what was applied.
  const annotations = { [LAST_APPLIED]: `${JSON.stringify(object)}\n` };
  return { ...object, metadata: { ...object.metadata, annotations } };
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Deletes every ScheduledJob, as many requests in flight as the creates had. */
async function deleteScheduledJobs(emu: KubeEmulator, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATES_IN_FLIGHT }, async () => {
      while (next < count) {
        await call(emu, 'DELETE', `${scheduledJobsPath()}/${scheduledJob(next++).metadata.name}`, undefined);
      }
    }),
  );
}

async function createScheduledJobs(emu: KubeEmulator, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATES_IN_FLIGHT }, async () => {
      while (next < count) await call(emu, 'POST', scheduledJobsPath(), scheduledJob(next++));
    }),
  );
}

function readyCount(emu: KubeEmulator): number {
  return emu
    .objects('scheduledjobs', NAMESPACE)
    .filter(
      (sj) =>
        sj.status?.observedGeneration === sj.metadata.generation &&
        sj.status?.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True'),
    ).length;
}

/** Waits until the emulator has served no request for two seconds, Lease renewals aside. */
async function settled(emu: KubeEmulator): Promise<void> {
  const total = () =>
    Object.entries(emu.requestCounts())
      .filter(([key]) => !key.endsWith(' leases'))
      .reduce((sum, [, n]) => sum + n, 0);
  let last = -1;
  while (total() !== last) {
    last = total();
    await sleep(2000);
  }
}

async function reconciles(healthUrl: string): Promise<number> {
  const text = await (await fetch(`${healthUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('crondeck_controller_reconcile_total{') && line.includes('kind="sj"'))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: () => string,
  /** Between checks; a check that copies every object (`emu.objects`) costs the emulator's time. */
  intervalMs = 250,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastNote = Date.now();
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    if (Date.now() - lastNote > 10_000) {
      console.log(`    ${what()}`);
      lastNote = Date.now();
    }
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------------------------------------
// Counting

const WRITE_VERBS = ['create', 'update', 'patch', 'delete'];

/**
 * Writes of the controller, every write but the bench's own creates, in three parts: to the
 * objects of one ScheduledJob (its finalizer and status, its CronJob, its Events), to the shared
 * report-token Secrets (a batch of many jobs' keys per write), and Lease renewals.
 */
function writeCounts(counts: Record<string, number>, options: { createdByBench?: number }) {
  let own = 0;
  let shared = 0;
  let leases = 0;
  for (const [key, n] of Object.entries(counts)) {
    const [verb, resource] = key.split(' ') as [string, string];
    if (!WRITE_VERBS.includes(verb)) continue;
    if (resource === 'leases') leases += n;
    else if (resource === 'secrets') shared += n;
    else if (key === 'create scheduledjobs') own += n - (options.createdByBench ?? 0);
    else own += n;
  }
  return { own, shared, total: own + shared, leases };
}

function requestsTable(
  counts: Record<string, number>,
  per: number,
  options: { createdByBench?: number },
): string {
  const rows = Object.entries(counts)
    .map(([key, n]) => [key, key === 'create scheduledjobs' ? n - (options.createdByBench ?? 0) : n] as const)
    .filter(([, n]) => n > 0)
    .map(([key, n]) => {
      const [verb, resource] = key.split(' ');
      return [verb!, resource!, formatNumber(n), per === 1 ? '' : (n / per).toFixed(3)];
    });
  if (rows.length === 0) return '_No requests._';
  return markdownTable(['verb', 'resource', 'requests', per === 1 ? '' : 'per object'], rows);
}

// ---------------------------------------------------------------------------------------------
// Report ingest

const INGEST_JOBS = 200;
const INGEST_CONNECTIONS = 16;

async function measureReportIngest(serviceUrl: string, databaseUrl: string) {
  const { reportTokenFor } = fromBuild<typeof import('../../src/domain/reportToken')>('domain/reportToken');
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const ids = (
      await db.query<{ id: number }>('SELECT id FROM jobs ORDER BY id LIMIT $1', [INGEST_JOBS])
    ).rows.map((r) => r.id);
    const tokens = new Map(ids.map((id) => [id, reportTokenFor(REPORT_SECRET, id)]));
    const maxIdBefore = Number(
      (await db.query<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM executions')).rows[0]!.id,
    );
    let sent = 0;
    const report = () => {
      const now = new Date().toISOString();
      return JSON.stringify({
        podUid: randomUUID(),
        runUid: randomUUID(),
        attempt: 0,
        final: true,
        status: 'success',
        exitCode: 0,
        startedAt: now,
        finishedAt: now,
        stdout: 'backup done\n',
        stderr: '',
      });
    };
    const latencies: number[] = [];
    const instance = autocannon({
      url: serviceUrl,
      connections: INGEST_CONNECTIONS,
      duration: LOAD_SECONDS,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => {
            const id = ids[sent++ % ids.length]!;
            return {
              ...request,
              path: `/api/jobs/${id}/reports`,
              headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.get(id)}` },
              body: report(),
            };
          },
        },
      ],
    });
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, ms: number) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(ms);
    });
    const result = await instance;
    const accepted = result.requests.total - result.non2xx;
    // Requests still in flight when autocannon stops are answered after it stopped counting: their
    // rows exist but not their 2xx. A report stored twice would show as two rows of one key.
    await sleep(1000);
    const { rows: counted } = await db.query<{ n: string; keys: string }>(
      'SELECT count(*) AS n, count(DISTINCT report_key) AS keys FROM executions WHERE id > $1',
      [maxIdBefore],
    );
    const rows = Number(counted[0]!.n);
    const doubled = rows - Number(counted[0]!.keys);
    latencies.sort((a, b) => a - b);
    const at = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)] ?? NaN;

    // The Express ceiling answering the same POST with the bytes the service answers.
    const sample = await fetch(`${serviceUrl}/api/jobs/${ids[0]}/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.get(ids[0]!)}` },
      body: report(),
    });
    const ceilings = await startCeilings({
      path: `/api/jobs/${ids[0]}/reports`,
      method: 'POST',
      status: sample.status,
      contentType: sample.headers.get('content-type') ?? 'application/json',
      body: Buffer.from(await sample.arrayBuffer()),
    });
    let ceilingPerSec: number;
    try {
      const ceiling = await autocannon({
        url: `${ceilings.expressUrl}/api/jobs/${ids[0]}/reports`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: report(),
        connections: INGEST_CONNECTIONS,
        duration: LOAD_SECONDS,
      });
      ceilingPerSec = ceiling.requests.total / ceiling.duration;
    } finally {
      await ceilings.stop();
    }
    return {
      accepted,
      rows,
      lost: Math.max(0, accepted - rows),
      doubled,
      recordedPerSec: rows / result.duration,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      ceilingPerSec,
    };
  } finally {
    await db.end();
  }
}
