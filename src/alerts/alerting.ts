import type { lookup } from 'node:dns';
import type { ConnectionOptions } from 'node:tls';
import type { Pool } from 'pg';
import type { SmtpSettings } from '../config/environment';
import type { DeclaredJob } from '../config/jobsFile';
import type { Clock } from '../domain/clock';
import type { Logger } from '../logging/logger';
import type { ExecutionFinishedHook, SlotsJudgedHook } from '../store/transactionHooks';
import { VERSION } from '../version';
import { WebhookAddressPolicy } from './addressPolicy';
import { AlertConfigService, type DeclaredAlerts } from './alertConfigService';
import { alertDelivery } from './alertDelivery';
import { EmailSender } from './emailSender';
import { DEFAULT_LEASE_MS, OutboxWorker } from './outboxWorker';
import { outboxHook, outboxRows } from './outboxHook';
import { slotAlertsHook } from './slotAlerts';
import { OverrunAlerts, watchLocalOverruns } from './policy/overruns';
import { alertConfigFromShortcuts } from './shortcuts';
import { WebhookSender } from './webhookSender';

/** Tuning and test seams of alert delivery; production runs with none set. */
export interface AlertingOptions {
  /** Per webhook request; default 10 s (spec section 6). */
  webhookTimeoutMs?: number;
  pollIntervalMs?: number;
  retryDelaysMs?: readonly number[];
  leaseMs?: number;
  /** Longest one e-mail send may take; default two thirds of the lease, so it ends within its claim. */
  emailSendTimeoutMs?: number;
  concurrency?: number;
  /** Sends to one destination (a webhook's host, the SMTP server) at once; default 2. */
  perDestinationConcurrency?: number;
  stopGraceMs?: number;
  workerId?: string;
  /** TLS options of the SMTP connection, e.g. a test's own CA. Never read from the environment. */
  smtpTls?: ConnectionOptions;
  /** Where a webhook request really goes (tests point chat platforms' hosts at loopback). */
  resolveWebhookTarget?: (url: URL) => URL;
  /** The resolver of webhook host names; the system's by default (tests give names addresses). */
  lookupWebhookHost?: typeof lookup;
  /** How often the local runtime's runs are looked at for an overrun; default 5 s. */
  overrunPollMs?: number;
}

export interface AlertingDeps {
  pool: Pool;
  clock: Clock;
  logger: Logger;
  smtp: SmtpSettings | null;
  webhookDenyCidrs: readonly string[];
  retentionDays: number;
  /** The time zone of a job without one: its policy's maintenance windows are read in it. */
  defaultTimeZone: string;
  /**
   * This process's runtime runs jobs itself (the local runtime): their overruns are looked for in
   * the rows of their running attempts. On a cluster the controller looks at the Jobs instead.
   */
  watchLocalRuns?: boolean;
  options?: AlertingOptions;
}

export interface Alerting {
  /** For `new ExecutionRecorder(pool, logger, hook)`: queues alerts with the execution, wakes the worker after. */
  hook: ExecutionFinishedHook;
  /** For the slot judge: queues the alerts of missed and late slots with their judgement. */
  slotsHook: SlotsJudgedHook;
  /** For the HTTP API. */
  api: AlertConfigService;
  worker: OutboxWorker;
  /** The `overrun` event of the alert policy. */
  overruns: OverrunAlerts;
  /**
   * Tells `listener` of the jobs that alert policies suspend, once each suspension has committed,
   * so that the runtime stops firing them.
   */
  onJobsSuspended(listener: (jobIds: number[]) => void): void;
  /** Checks the config file's shortcuts; throws naming the job and key. Nothing is written. */
  readDeclared(declared: readonly DeclaredJob[]): DeclaredAlerts[];
  applyDeclared(declared: DeclaredAlerts[]): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

/** Builds the alerting room from its parts: configuration, senders, the outbox hook and worker. */
export function createAlerting(deps: AlertingDeps): Alerting {
  const options = deps.options ?? {};
  const policy = new WebhookAddressPolicy(deps.webhookDenyCidrs, options.lookupWebhookHost);
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const email = deps.smtp
    ? new EmailSender({
        smtp: deps.smtp,
        tls: options.smtpTls,
        sendTimeoutMs: options.emailSendTimeoutMs ?? Math.floor((leaseMs * 2) / 3),
      })
    : null;
  const webhooks = new WebhookSender({
    policy,
    timeoutMs: options.webhookTimeoutMs,
    userAgent: `crondeck/${VERSION}`,
    resolveTarget: options.resolveWebhookTarget,
  });
  const worker = new OutboxWorker({
    pool: deps.pool,
    clock: deps.clock,
    logger: deps.logger,
    deliver: alertDelivery({
      webhooks,
      email,
      messageIdDomain: deps.smtp?.from.split('@')[1] || 'crondeck.local',
      clock: deps.clock,
    }),
    pollIntervalMs: options.pollIntervalMs,
    retryDelaysMs: options.retryDelaysMs,
    leaseMs,
    concurrency: options.concurrency,
    perDestinationConcurrency: options.perDestinationConcurrency,
    stopGraceMs: options.stopGraceMs,
    workerId: options.workerId,
    retentionDays: deps.retentionDays,
  });
  const api = new AlertConfigService(deps.pool, policy);
  const suspensionListeners: ((jobIds: number[]) => void)[] = [];
  const overruns = new OverrunAlerts({
    pool: deps.pool,
    clock: deps.clock,
    defaultTimeZone: deps.defaultTimeZone,
    rowsOf: outboxRows(deps.logger, email !== null),
    afterQueued: () => worker.wake(),
  });
  let overrunWatch: { stop(): Promise<void> } | null = null;

  return {
    hook: outboxHook({
      clock: deps.clock,
      logger: deps.logger,
      emailEnabled: email !== null,
      defaultTimeZone: deps.defaultTimeZone,
      // After the commit, not before (the worker would not see the rows yet), and only for the
      // executions that queued alerts.
      afterQueued: () => worker.wake(),
      afterSuspended: (jobIds) => {
        for (const listener of suspensionListeners) {
          try {
            listener(jobIds);
          } catch (error) {
            deps.logger.warn('a suspension listener failed', { err: error, jobIds });
          }
        }
      },
    }),
    slotsHook: slotAlertsHook({
      clock: deps.clock,
      logger: deps.logger,
      emailEnabled: email !== null,
      defaultTimeZone: deps.defaultTimeZone,
      afterQueued: () => worker.wake(),
    }),
    api,
    worker,
    overruns,
    onJobsSuspended: (listener) => suspensionListeners.push(listener),
    readDeclared: (declared) =>
      declared.map((job) => {
        try {
          const config = alertConfigFromShortcuts(job.raw);
          if (config) api.checkAddresses(config);
          return { jobName: job.input.name, config };
        } catch (error) {
          const where = `${job.file ? `${job.file}: ` : ''}job "${job.input.name}"`;
          throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
        }
      }),
    applyDeclared: (declared) => api.applyDeclared(declared),
    start() {
      worker.start();
      if (deps.watchLocalRuns) {
        overrunWatch = watchLocalOverruns(overruns, deps.logger, options.overrunPollMs ?? 5000);
      }
    },
    async stop() {
      await overrunWatch?.stop();
      await worker.stop();
      webhooks.close();
      email?.close();
    },
  };
}
