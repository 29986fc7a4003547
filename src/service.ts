import type { KubeConfig } from '@kubernetes/client-node';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { type Alerting, type AlertingOptions, createAlerting } from './alerts/alerting';
import { ExecutionLists } from './caching/executionLists';
import { type Clock, systemClock } from './domain/clock';
import type { DeclaredJob } from './config/jobsFile';
import type { Environment } from './config/environment';
import { createApp } from './http/app';
import { Reviewer } from './auth/reviewer';
import { frontDoor } from './http/frontDoor/frontDoor';
import { probesInFront } from './http/routes/health';
import { reportConnectionTrouble } from './http/connectionTrouble';
import { createAppServer } from './http/server';
import { startGate } from './http/startGate';
import { listenHostOf } from './config/listenAddress';
import { warnAboveOpenFileLimit } from './config/openFileLimit';
import type { Logger } from './logging/logger';
import { ServiceMetrics } from './metrics/metrics';
import { createRuntime, type LocalRuntimeSettings } from './runtime/createRuntime';
import type { LocalRuntimeHooks } from './runtime/local/localRuntime';
import type { Runtime } from './runtime/runtime';
import { ExecutionRecorder } from './scheduling/executionRecorder';
import { JobService } from './scheduling/jobService';
import { ReportIngest } from './scheduling/reportIngest';
import { scheduleRetention } from './scheduling/retention';
import { SchedulerControl } from './scheduling/schedulerControl';
import { SlotJudge } from './scheduling/slotJudge';
import { SlotService } from './scheduling/slotService';
import { SLOT_JUDGE_LOCK_KEY, SlotJudgeLoop } from './scheduling/slotJudgeLoop';
import { AdvisoryLockLeadership } from './runtime/local/leadership';
import type { Database } from './store/database';
import { ListChangeFeed } from './store/listChangeFeed';
import { migrate } from './store/migrate';
import { waitForDatabase } from './store/waitForDatabase';
import { VERSION } from './version';

export interface ServiceOptions {
  env: Environment;
  db: Database;
  logger: Logger;
  /** The cluster, in Kubernetes mode (`SERVICE_RUNTIME=kubernetes`). */
  kubeConfig?: KubeConfig;
  clock?: Clock;
  /** Jobs from a config file, applied at start. */
  declaredJobs?: DeclaredJob[];
  /** Tuning and test seams of the local runtime. */
  local?: LocalRuntimeSettings;
  /** Wraps the chosen runtime (tests make it refuse, as a cluster can). */
  wrapRuntime?: (runtime: Runtime) => Runtime;
  /** Tuning and test seams of alert delivery (timeouts, poll interval, TLS trust of a test SMTP server). */
  alerting?: AlertingOptions;
  /**
   * How often the slot judge looks on a cluster (null: only when a test asks, through `judge`);
   * locally the runtime's `judgeIntervalMs` and `autoTick` say it.
   */
  slotJudgeIntervalMs?: number | null;
}

export interface RunningService {
  db: Database;
  app: Express;
  server: Server;
  url: string;
  runtime: Runtime;
  /** The local runtime's hooks when it is the active runtime, else null. */
  local: LocalRuntimeHooks | null;
  jobs: JobService;
  recorder: ExecutionRecorder;
  alerting: Alerting;
  /** Judges the slot ledger (docs/slots.md); tests call it with their clock's time. */
  judge: SlotJudge;
  /** The server's notifications of list changes, on a database server (null on the embedded one). */
  listChanges: ListChangeFeed | null;
  /**
   * Drains for `drainSeconds` (default none), stops accepting requests, lets those in flight finish
   * (SERVICE_SHUTDOWN_GRACE_SECONDS at most) and running jobs too (or records them failed), closes
   * the database. Called again while it drains, with no drain, it ends the drain at once.
   */
  stop(options?: StopOptions): Promise<void>;
}

interface StopOptions {
  /**
   * Seconds to go on serving first, `/health` answering 503 and every answer `Connection: close`:
   * a cluster takes some seconds to stop routing to a terminating pod (SIGTERM: the environment's
   * SERVICE_SHUTDOWN_DRAIN_SECONDS).
   */
  drainSeconds?: number;
}

/**
 * Wires the service from its parts and starts it: the wait for a database server that is not up
 * yet, migrations, the runtime, the HTTP server. This
 * is the one place where the parts meet; `cli.ts` calls it with real parts, tests with test parts.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { env, db, logger } = options;
  const clock = options.clock ?? systemClock;
  const pool = db.pool;
  // Before anything opens: without a cluster there is no API server to review the callers.
  const reviewer = env.auth === 'kubernetes' ? clusterReviewer(env, logger, options.kubeConfig) : null;

  await waitForDatabase(db, { waitSeconds: env.databaseWaitSeconds, logger });
  await migrate(pool, logger);
  const alerting = createAlerting({
    pool,
    clock,
    logger,
    smtp: env.smtp,
    webhookDenyCidrs: env.webhookDenyCidrs,
    retentionDays: env.retentionDays,
    defaultTimeZone: env.defaultTimeZone,
    watchLocalRuns: env.runtime === 'local',
    options: options.alerting,
  });
  const recorder = new ExecutionRecorder(pool, logger, alerting.hook);
  const judge = new SlotJudge({
    pool,
    clock,
    logger,
    defaultTimeZone: env.defaultTimeZone,
    runtime: env.runtime,
    // Missed and late slots alert with their judgement, through the same outbox.
    onJudged: alerting.slotsHook,
  });
  const created = createRuntime(
    env.runtime,
    {
      db,
      recorder,
      clock,
      logger,
      defaultTimeZone: env.defaultTimeZone,
      judge,
      kubernetes: options.kubeConfig
        ? { kubeConfig: options.kubeConfig, ...env.kubernetes, writeAsCallers: reviewer !== null }
        : undefined,
    },
    options.local,
  );
  const { local } = created;
  const runtime = options.wrapRuntime ? options.wrapRuntime(created.runtime) : created.runtime;
  // On a server, kept answers are proven current by its notifications (store/listChangeFeed.ts);
  // the embedded database serves this process alone, on one session.
  const listChanges = db.openSession
    ? new ListChangeFeed({ openSession: db.openSession, logger, staleMs: env.readStalenessMs })
    : null;
  if (listChanges) {
    // Each statement of this process gives its connection back as it ends: from then on a read
    // waits for a catch-up sent after it, so that whoever wrote through this replica reads it.
    for (const pool of [db.pool, db.genericPlanPool]) pool.on('release', () => listChanges.noteOwnWrite());
  }
  // On a cluster, jobs live in namespaces: the service's own unless one is named.
  const kubernetesHome = env.runtime === 'kubernetes' ? env.kubernetes.namespace : null;
  const jobs = new JobService(pool, runtime, clock, env.defaultTimeZone, listChanges, kubernetesHome);
  alerting.onJobsSuspended((jobIds) => {
    logger.warn('jobs suspended by their alert policy', { jobIds });
    jobs
      .suspensionsTaken(jobIds)
      .catch((error) => logger.error('could not stop firing suspended jobs', { err: error, jobIds }));
  });
  const scheduler = new SchedulerControl(pool, runtime, clock);

  const executionLists = new ExecutionLists(pool, listChanges);
  const app = createApp({
    pool,
    genericPlanPool: db.genericPlanPool,
    logger,
    clock,
    jobs,
    executionLists,
    scheduler,
    slots: new SlotService(pool, runtime, clock, env.defaultTimeZone, listChanges),
    metrics: new ServiceMetrics(VERSION),
    alerts: alerting.api,
    reports: new ReportIngest(recorder),
    reportSecret: env.reportSecret,
    apiToken: env.apiToken,
    reviewer,
    kubernetesHome,
    defaultTimeZone: env.defaultTimeZone,
  });
  const shutdown = { draining: false };
  // The front door answers with the shared token's say-so: with the cluster's RBAC every request
  // needs its reviews, which the app makes (auth/kubernetesAuth.ts).
  const inFront = probesInFront(
    shutdown,
    reviewer ? (_req, _res, toApp) => toApp() : frontDoor({ jobs, executionLists }, env.apiToken),
  );
  // The port first: a process that cannot serve (the port taken, the address not its own) must
  // exit before it applies a config file, takes the lead or fires anything. Requests that arrive
  // meanwhile wait until the service has started (startGate).
  const starting = startGate();
  const server = await listen(
    createAppServer(app, starting.hold(inFront), {
      keepAliveTimeoutMs: env.keepAliveTimeoutSeconds * 1000,
      maxConnections: env.maxConnections,
    }),
    env,
  );
  const connectionTrouble = reportConnectionTrouble(server, logger);
  warnAboveOpenFileLimit(env.maxConnections, logger);

  let judgeLoop: SlotJudgeLoop | null = null;
  let stopRetention: () => void;
  try {
    if (options.declaredJobs?.length) {
      // Checked before the jobs are applied: a bad shortcut must not leave half a config file applied.
      const declaredAlerts = alerting.readDeclared(options.declaredJobs);
      const applied = await jobs.applyDeclared(options.declaredJobs.map((declared) => declared.input));
      await alerting.applyDeclared(declaredAlerts);
      logger.info('applied jobs from the config file', applied);
    }
    await runtime.start();
    // On a cluster no replica leads the (absent) local runtime: one judges under a lock of its own.
    judgeLoop =
      env.runtime === 'kubernetes' && db.openSession
        ? new SlotJudgeLoop({
            judge,
            leadership: new AdvisoryLockLeadership({
              openSession: db.openSession,
              logger,
              lockKey: SLOT_JUDGE_LOCK_KEY,
              role: 'judges the slot ledger',
            }),
            clock,
            logger,
            intervalMs: options.slotJudgeIntervalMs === undefined ? 5000 : options.slotJudgeIntervalMs,
          })
        : null;
    await judgeLoop?.start();
    alerting.start();
    stopRetention = scheduleRetention(pool, clock, env.retentionDays, logger);
  } catch (error) {
    // The requests held meanwhile are cut with their connections: nothing will answer them.
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    throw error;
  }
  starting.open();
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  logger.info('crondeck is listening', { url, database: db.description, version: VERSION });

  let stopped: Promise<void> | undefined;
  let endDrain = () => {};
  const stop = (stopOptions: StopOptions = {}) => {
    if (stopped) {
      if (!stopOptions.drainSeconds) endDrain();
      return stopped;
    }
    return (stopped = (async () => {
      await drain(shutdown, stopOptions.drainSeconds ?? 0, logger, (end) => (endDrain = end));
      stopRetention();
      await closeServer(server, env.shutdownGraceSeconds, logger);
      connectionTrouble.stop();
      // A pass of the judge under way (a long gap) ends after its batch rather than hold the stop up.
      judge.stop();
      await judgeLoop?.stop();
      await runtime.stop();
      // After the runtime: alerts of the runs it let finish are queued, and kept for the next start.
      await alerting.stop();
      await listChanges?.stop();
      await db.close();
    })());
  };

  return { db, app, server, url, runtime, local, jobs, recorder, alerting, judge, listChanges, stop };
}

/**
 * SERVICE_AUTH=kubernetes: the reviews of the cluster of `kubeConfig`, sent with the service's own
 * credentials, kept SERVICE_AUTH_CACHE_SECONDS. Refused without a cluster.
 */
function clusterReviewer(env: Environment, logger: Logger, kubeConfig: KubeConfig | undefined): Reviewer {
  if (!kubeConfig) {
    throw new Error(
      'SERVICE_AUTH=kubernetes needs a cluster to review the tokens of callers: run in a pod, or set KUBECONFIG',
    );
  }
  if (env.apiToken) {
    logger.warn(
      'SERVICE_API_TOKEN is not accepted with SERVICE_AUTH=kubernetes: callers send tokens of the cluster',
    );
  }
  // Loaded here, not above: @kubernetes/client-node costs some 60 MB that token mode never needs.
  const { AccessReviews } = require('./kube/accessReviews') as typeof import('./kube/accessReviews');
  return new Reviewer({
    api: new AccessReviews(kubeConfig, logger),
    logger,
    cacheTtlMs: env.authCacheSeconds * 1000,
    timeoutMs: env.authReviewTimeoutMs,
  });
}

function listen(server: Server, env: Environment): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: env.port, host: listenHostOf(env.host) }, () => {
      // From here on an 'error' is a connection the server could not accept: reportConnectionTrouble's.
      server.off('error', reject);
      resolve(server);
    });
  });
}

/**
 * Goes on serving for `seconds`, the service marked draining (http/routes/health.ts), unless
 * `onEnd`'s function is called first. Marked draining whether it waits or not: the answers of the
 * requests still in flight while the server closes say `Connection: close` too.
 */
async function drain(
  state: { draining: boolean },
  seconds: number,
  logger: Logger,
  onEnd: (end: () => void) => void,
): Promise<void> {
  state.draining = true;
  if (seconds <= 0) return;
  logger.info('draining: /health answers 503 while requests are still served', { seconds });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, seconds * 1000);
    onEnd(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Closes the listener and the idle connections, waits for the requests in flight to be answered
 * (`graceSeconds` at most), then closes every connection left. Node closes the connections idle
 * when the listener closes, not those that become idle later: they are closed as they do.
 */
async function closeServer(server: Server, graceSeconds: number, logger: Logger): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  logger.info('no longer accepting connections; answering the requests in flight', { graceSeconds });
  const idleSweep = setInterval(() => server.closeIdleConnections(), 50);
  let deadline: NodeJS.Timeout | undefined;
  const cut = new Promise<'cut'>(
    (resolve) => (deadline = setTimeout(() => resolve('cut'), graceSeconds * 1000)),
  );
  if ((await Promise.race([closed, cut])) === 'cut') {
    logger.warn('requests still in flight at the end of the grace period; their connections are closed', {
      graceSeconds,
    });
    server.closeAllConnections();
  }
  clearTimeout(deadline);
  clearInterval(idleSweep);
  await closed;
}
