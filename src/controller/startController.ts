import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { createAlerting } from '../alerts/alerting';
import type { ControllerEnvironment } from '../config/controllerEnvironment';
import type { Environment } from '../config/environment';
import { type Clock, systemClock } from '../domain/clock';
import type { Logger } from '../logging/logger';
import { ExecutionRecorder } from '../scheduling/executionRecorder';
import type { Database } from '../store/database';
import { migrate } from '../store/migrate';
import { waitForDatabase } from '../store/waitForDatabase';
import { ControllerManager, type ControllerOptions } from './controllerManager';
import { desiredCronJob } from './desired/cronJob';
import { cronJobNeedsUpdate } from './desired/cronJobNeedsUpdate';
import type { DesiredObjects } from './scheduledJobs/scheduledJobReconciler';

export interface RunningController {
  manager: ControllerManager;
  /** The health and metrics server (GET /healthz, GET /metrics). */
  healthUrl: string;
  stop(): Promise<void>;
}

/** The pure desired-state functions, given what they need to know of this installation. */
function desiredObjects(settings: {
  image: string;
  imagePullPolicy: ControllerEnvironment['imagePullPolicy'];
  imagePullSecrets: ControllerEnvironment['imagePullSecrets'];
  reportUrl: string;
  defaultTimeZone: string;
}): DesiredObjects {
  return {
    cronJob: (resource, { jobId, jobName, paused, suspended }) =>
      desiredCronJob(resource, {
        jobId,
        jobName,
        paused,
        suspended,
        image: settings.image,
        imagePullPolicy: settings.imagePullPolicy,
        imagePullSecrets: settings.imagePullSecrets,
        reportUrl: settings.reportUrl,
        defaultTimeZone: settings.defaultTimeZone,
      }),
    cronJobNeedsUpdate,
  };
}

/**
 * Wires `crondeck controller` from its parts: the database (waited for and migrated, as the service
 * does), the
 * execution recorder with the alert outbox (runs the controller records alert like any other; the
 * service's worker delivers them), the manager, and a small health server for the kubelet's probes
 * and Prometheus.
 */
export async function startController(options: {
  env: Environment;
  controllerEnv: ControllerEnvironment;
  db: Database;
  kubeConfig: KubeConfig;
  logger: Logger;
  clock?: Clock;
  tuning?: Partial<
    Pick<
      ControllerOptions,
      | 'resyncMs'
      | 'reportGraceMs'
      | 'runStartDeadlineMs'
      | 'leaseDurationMs'
      | 'retryPeriodMs'
      | 'slotRunIntervalMs'
    >
  >;
}): Promise<RunningController> {
  const { env, controllerEnv, db, logger } = options;
  const clock = options.clock ?? systemClock;
  await waitForDatabase(db, { waitSeconds: env.databaseWaitSeconds, logger });
  await migrate(db.pool, logger);
  const alerting = createAlerting({
    pool: db.pool,
    clock,
    logger,
    smtp: env.smtp,
    webhookDenyCidrs: env.webhookDenyCidrs,
    retentionDays: env.retentionDays,
    defaultTimeZone: env.defaultTimeZone,
  });
  const manager = new ControllerManager({
    kubeConfig: options.kubeConfig,
    pool: db.pool,
    recorder: new ExecutionRecorder(db.pool, logger, alerting.hook),
    alerts: alerting.api,
    overruns: alerting.overruns,
    desired: desiredObjects({
      image: controllerEnv.image,
      imagePullPolicy: controllerEnv.imagePullPolicy,
      imagePullSecrets: controllerEnv.imagePullSecrets,
      reportUrl: controllerEnv.reportUrl,
      defaultTimeZone: env.defaultTimeZone,
    }),
    watchNamespace: controllerEnv.watchNamespace,
    homeNamespace: controllerEnv.homeNamespace,
    leaseNamespace: controllerEnv.leaseNamespace,
    ownSecrets: controllerEnv.ownSecrets,
    reportSecret: controllerEnv.reportSecret,
    defaultTimeZone: env.defaultTimeZone,
    identity: controllerEnv.identity,
    leaderElection: controllerEnv.leaderElection,
    clock,
    logger,
    resyncMs: controllerEnv.resyncSeconds * 1000,
    ...options.tuning,
  });
  // Runs this controller records (those that never reported) can suspend their jobs too.
  alerting.onJobsSuspended((jobIds) => {
    manager
      .reconcileJobs(jobIds)
      .catch((error) =>
        logger.warn('could not reconcile suspended jobs; the resync will', { err: error, jobIds }),
      );
  });
  const health = await serveHealth(manager, controllerEnv.healthPort);
  await manager.start();
  const address = health.address() as AddressInfo;
  return {
    manager,
    healthUrl: `http://127.0.0.1:${address.port}`,
    async stop() {
      await manager.stop();
      health.closeAllConnections();
      await new Promise<void>((resolve) => health.close(() => resolve()));
      await db.close();
    },
  };
}

function serveHealth(manager: ControllerManager, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/healthz') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'ok', leader: manager.isActing }));
      return;
    }
    if (req.url === '/metrics') {
      void manager.metrics.registry.metrics().then((text) => {
        res.setHeader('content-type', manager.metrics.registry.contentType);
        res.end(text);
      });
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve(server));
  });
}
