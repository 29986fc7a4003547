import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1CronJob,
  type V1Job,
  type V1Pod,
  type V1Secret,
} from '@kubernetes/client-node';
import type { Pool } from 'pg';
import type { JobAlertsSync } from '../alerts/alertConfigService';
import type { RunInProgress } from '../alerts/policy/overruns';
import type { Clock } from '../domain/clock';
import type { Logger } from '../logging/logger';
import { ClusterRunRecorder } from '../scheduling/clusterRunRecorder';
import type { ExecutionRecorder } from '../scheduling/executionRecorder';
import { resourceOfJob } from '../store/resourceJobs';
import { ClusterClient } from '../kube/clusterClient';
import { ControllerMetrics } from './controllerMetrics';
import { EventRecorder } from './events';
import { LABEL_MANAGED_BY, MANAGED_BY_CRONDECK } from '../kube/labels';
import { LABEL_REPORT_TOKENS, reportTokenLocation } from './desired/reportTokens';
import type { AlertConfigResource } from '../kube/resources/alertConfig';
import type { ScheduledJob } from '../kube/resources/scheduledJob';
import { RunReconciler } from './runs/runReconciler';
import { SlotRunner } from './slotRuns/slotRunner';
import { type CachedInformer, startInformer, type WatchedKind } from './runtime/informer';
import { LeaderElector } from './runtime/leaderElection';
import { syncJobAlerts } from './scheduledJobs/jobAlerts';
import { TokenSecrets, type TokenWaiter } from './scheduledJobs/tokenSecrets';
import { WorkQueue } from './runtime/workQueue';
import {
  isWatchedKind,
  WatchedCronJobs,
  type WatchedKind as WatchedCronJobKind,
} from './watchedCronJobs/watchedCronJobs';
import {
  type DesiredObjects,
  type ReconcileResult,
  ScheduledJobReconciler,
} from './scheduledJobs/scheduledJobReconciler';

export interface ControllerOptions {
  kubeConfig: KubeConfig;
  pool: Pool;
  recorder: ExecutionRecorder;
  /** The service's alert configuration, which the jobs' shortcuts and AlertConfigs fill. */
  alerts: JobAlertsSync;
  /** The alert policy's `overrun`, raised for Kubernetes Jobs still running past their limit. */
  overruns?: { raiseIfDue(run: RunInProgress): Promise<{ dueInMs: number | null }> };
  desired: DesiredObjects;
  /** The namespace to watch; null watches all. */
  watchNamespace: string | null;
  /** Where the REST API creates ScheduledJobs: its jobs keep unqualified names. */
  homeNamespace: string;
  /** The controller's own namespace, where its Lease lives. */
  leaseNamespace: string;
  /** Crondeck's own Secrets in `leaseNamespace`, which no ScheduledJob's env may name. */
  ownSecrets?: string[];
  reportSecret: string;
  defaultTimeZone: string;
  /** This replica's name (its pod name): the leader election identity and the events' instance. */
  identity: string;
  /** Off: act at once (one replica, tests). On: act only while holding the Lease. */
  leaderElection: boolean;
  clock: Clock;
  logger: Logger;
  workers?: number;
  /** Every object is reconciled again this often, whatever the watches said (level-triggered). */
  resyncMs?: number;
  reportGraceMs?: number;
  /** How long a run may be stuck before it could start (runs/startDeadline.ts): ten minutes. */
  runStartDeadlineMs?: number;
  /** How often the leader looks for catch-up and backfill runs to start (slotRuns/slotRunner.ts). */
  slotRunIntervalMs?: number;
  /** How long a batch of report-token keys gathers before it is written. */
  tokenLingerMs?: number;
  leaseDurationMs?: number;
  retryPeriodMs?: number;
}

type Kind = 'sj' | 'run' | WatchedCronJobKind;
const LEASE_NAME = 'crondeck-controller';
const managedSelector = `${LABEL_MANAGED_BY}=${MANAGED_BY_CRONDECK}`;

/**
 * `crondeck controller`: watches ScheduledJobs and the CronJobs, Jobs, pods and Secrets it made, and
 * reconciles each object that changed, on a queue that never gives one object to two workers and
 * backs off an object that keeps failing. With leader election, only the replica holding the Lease
 * watches and acts; the others wait to take over.
 */
export class ControllerManager {
  readonly metrics = new ControllerMetrics();
  readonly cluster: ClusterClient;
  private queue = new WorkQueue();
  private readonly elector: LeaderElector | null;
  private informers: {
    scheduledJobs: CachedInformer<ScheduledJob>;
    alertConfigs: CachedInformer<AlertConfigResource>;
    cronJobs: CachedInformer<V1CronJob>;
    jobs: CachedInformer<V1Job>;
    pods: CachedInformer<V1Pod>;
    secrets: CachedInformer<V1Secret>;
  } | null = null;
  private workers: Promise<void>[] = [];
  private scheduledJobReconciler!: ScheduledJobReconciler;
  private tokens!: TokenSecrets;
  private runReconciler!: RunReconciler;
  private slotRunner: SlotRunner | null = null;
  /** The CronJobs CronJobWatches select (issue 40). */
  private watched: WatchedCronJobs | null = null;
  private resyncTimer: NodeJS.Timeout | undefined;
  private acting = false;

  constructor(private readonly options: ControllerOptions) {
    this.cluster = new ClusterClient(options.kubeConfig, options.logger);
    this.elector = options.leaderElection
      ? new LeaderElector(
          {
            leases: this.cluster.coordination,
            namespace: options.leaseNamespace,
            name: LEASE_NAME,
            identity: options.identity,
            logger: options.logger,
            leaseDurationMs: options.leaseDurationMs,
            retryPeriodMs: options.retryPeriodMs,
            renewDeadlineMs: options.leaseDurationMs ? Math.floor(options.leaseDurationMs * 0.66) : undefined,
          },
          { onStartedLeading: () => void this.act(), onStoppedLeading: () => void this.standBy() },
        )
      : null;
  }

  get isActing(): boolean {
    return this.acting;
  }

  async start(): Promise<void> {
    if (this.elector) this.elector.start();
    else await this.act();
  }

  async stop(): Promise<void> {
    await this.standBy();
    await this.elector?.stop();
  }

  /** Resolves once every watch has listed what exists (tests wait for it). */
  async synced(): Promise<void> {
    await this.scheduledJobCachesSynced();
    await this.watched?.synced();
  }

  /** The caches of ScheduledJobs and what they made, which work on them waits for. */
  private async scheduledJobCachesSynced(): Promise<void> {
    if (!this.informers) throw new Error('the controller is not acting');
    await Promise.all(Object.values(this.informers).map((informer) => informer.synced));
  }

  private async act(): Promise<void> {
    if (this.acting) return;
    this.acting = true;
    this.metrics.leader.set(1);
    const { options, cluster } = this;
    const { logger } = options;
    const ns = options.watchNamespace;
    const enqueue = (kind: Kind) => (object: KubernetesObject) => this.enqueue(kind, object);
    const enqueueOwner = (object: KubernetesObject) => {
      const owner = object.metadata?.ownerReferences?.find((ref) => ref.kind === 'ScheduledJob');
      if (owner) this.queue.add(`sj/${object.metadata?.namespace}/${owner.name}`);
    };
    const watch = <T extends KubernetesObject>(
      kind: WatchedKind<T>,
      onChange: (object: T, event: 'add' | 'update' | 'delete') => void,
    ) => startInformer(options.kubeConfig, kind, onChange, logger);
    // What the controller made carries the managed-by label: only that is watched.
    const managed = <T extends KubernetesObject>(
      resource: string,
      path: string,
      list: (namespace: string | null, labelSelector: string) => Promise<KubernetesListObject<T>>,
    ): WatchedKind<T> => ({
      resource,
      path,
      list: () => list(ns, managedSelector),
      labelSelector: managedSelector,
    });

    const scheduledJobs = watch<ScheduledJob>(
      {
        resource: 'scheduledjobs',
        path: cluster.customPath('scheduledjobs', ns),
        list: () => cluster.listCustom('scheduledjobs', ns),
      },
      enqueue('sj'),
    );
    const alertConfigs = watch<AlertConfigResource>(
      {
        resource: 'alertconfigs',
        path: cluster.customPath('alertconfigs', ns),
        list: () => cluster.listCustom('alertconfigs', ns),
      },
      (config) => {
        const jobRef = config.spec?.jobRef?.name;
        if (jobRef) this.queue.add(`sj/${config.metadata?.namespace}/${jobRef}`);
      },
    );
    const cronJobs = watch(
      managed('cronjobs', cluster.cronJobsPath(ns), (n, l) => cluster.listCronJobs(n, l)),
      enqueueOwner,
    );
    const secrets = watch(
      managed('secrets', cluster.secretsPath(ns), (n, l) => cluster.listSecrets(n, l)),
      (secret, event) => this.tokenSecretChanged(secret, event),
    );
    const jobs = watch(
      managed('jobs', cluster.jobsPath(ns), (n, l) => cluster.listJobs(n, l)),
      (job, event) => {
        // A Job deleted before its run was recorded (history limits, Replace) still has a run to
        // record: the reconciler keeps it as the event last shows it.
        if (event !== 'delete' || this.runReconciler.jobDeleted(job)) this.enqueue('run', job);
        this.slotRunner?.jobChanged(job);
      },
    );
    // A run's pods say why it failed (OOMKilled, ImagePullBackOff...): each change is its Job's.
    const pods = watch(
      managed('pods', cluster.podsPath(ns), (n, l) => cluster.listPods(n, l)),
      (pod, event) => {
        if (event === 'delete') this.runReconciler.podDeleted(pod);
        const owner = pod.metadata?.ownerReferences?.find((ref) => ref.kind === 'Job');
        if (owner && pod.metadata?.namespace) this.queue.add(`run/${pod.metadata.namespace}/${owner.name}`);
      },
    );
    this.watched = new WatchedCronJobs({
      kubeConfig: options.kubeConfig,
      cluster,
      namespace: ns,
      pool: options.pool,
      recorder: options.recorder,
      alerts: options.alerts,
      clock: options.clock,
      logger,
      defaultTimeZone: options.defaultTimeZone,
      enqueue: (key) => this.queue.add(key),
    });
    this.informers = { scheduledJobs, alertConfigs, cronJobs, jobs, pods, secrets };

    const events = new EventRecorder(cluster.core, 'crondeck-controller', options.identity, logger);
    const sjKey = ({ namespace, name }: TokenWaiter) => `sj/${namespace}/${name}`;
    this.tokens = new TokenSecrets({
      cluster,
      secrets,
      logger,
      written: (waiter) => this.queue.add(sjKey(waiter)),
      failed: (waiter) => this.queue.addRateLimited(sjKey(waiter)),
      lingerMs: options.tokenLingerMs,
    });
    this.scheduledJobReconciler = new ScheduledJobReconciler({
      pool: options.pool,
      cluster,
      caches: { scheduledJobs, cronJobs },
      tokens: this.tokens,
      desired: options.desired,
      events,
      reportSecret: options.reportSecret,
      homeNamespace: options.homeNamespace,
      ownSecrets: { namespace: options.leaseNamespace, names: new Set(options.ownSecrets ?? []) },
      defaultTimeZone: options.defaultTimeZone,
      clock: options.clock,
      logger,
      syncAlerts: (resource, job) =>
        syncJobAlerts({ cluster, alertConfigs, alerts: options.alerts }, resource, job),
    });
    this.runReconciler = new RunReconciler({
      pool: options.pool,
      caches: { jobs, cronJobs, pods },
      runs: new ClusterRunRecorder(options.recorder),
      clock: options.clock,
      logger,
      defaultTimeZone: options.defaultTimeZone,
      reportGraceMs: options.reportGraceMs,
      overruns: options.overruns,
      refreshStatus: (namespace, name) => this.queue.add(`sj/${namespace}/${name}`),
      patchJob: (namespace, name, patch) => cluster.patchJob(namespace, name, patch),
      startDeadlineMs: options.runStartDeadlineMs,
    });

    // Work starts once the caches hold what exists: reconciling against a half-filled cache would
    // create CronJobs that exist already. Watched CronJobs wait for their own caches apart: a
    // cluster without the CronJobWatch CRD (or the RBAC to read it) keeps its ScheduledJobs going.
    await this.scheduledJobCachesSynced();
    if (!this.acting) return;
    this.watched.startWhenSynced();
    this.workers = Array.from({ length: options.workers ?? 4 }, () => this.work());
    this.stampIfNothingToReconcile();
    this.slotRunner = new SlotRunner({
      pool: options.pool,
      cluster,
      caches: { jobs, cronJobs },
      clock: options.clock,
      logger,
      defaultTimeZone: options.defaultTimeZone,
      intervalMs: options.slotRunIntervalMs,
    });
    await this.slotRunner.start();
    const resyncMs = options.resyncMs ?? 10 * 60_000;
    this.resyncTimer = setInterval(() => this.resync(), resyncMs);
    this.resyncTimer.unref();
    logger.info('controller started', { namespace: ns ?? 'all namespaces', identity: options.identity });
  }

  private async standBy(): Promise<void> {
    if (!this.acting) return;
    this.acting = false;
    this.metrics.leader.set(0);
    clearInterval(this.resyncTimer);
    this.queue.shutDown();
    await this.slotRunner?.stop();
    this.slotRunner = null;
    await Promise.all(this.workers);
    await Promise.all(Object.values(this.informers ?? {}).map((informer) => informer.stop()));
    await this.watched?.stop();
    this.watched = null;
    this.informers = null;
    this.workers = [];
    // A later leadership starts from a fresh queue.
    this.queue = new WorkQueue();
  }

  /**
   * Reconciles the ScheduledJobs of these jobs soon: their rows changed where no watch sees it (the
   * alert policy suspended them as this process recorded their runs).
   */
  async reconcileJobs(jobIds: readonly number[]): Promise<void> {
    for (const jobId of jobIds) {
      const resource = await resourceOfJob(this.options.pool, jobId);
      if (resource) this.queue.add(`sj/${resource.namespace}/${resource.name}`);
    }
  }

  /** Every ScheduledJob and finished Job again: a missed event cannot leave anything behind. */
  resync(): void {
    for (const resource of this.informers?.scheduledJobs.list() ?? []) this.enqueue('sj', resource);
    for (const job of this.informers?.jobs.list() ?? []) this.enqueue('run', job);
    this.watched?.resync();
    this.stampIfNothingToReconcile();
  }

  /**
   * `last_reconcile_timestamp_seconds` says when the controller was last known to be in sync: a
   * reconcile that succeeded, or a look that found nothing to reconcile. Without the second, a
   * controller with no ScheduledJobs would look stuck to CrondeckControllerNotReconciling.
   */
  private stampIfNothingToReconcile(): void {
    const { scheduledJobs, jobs } = this.informers ?? {};
    if (scheduledJobs?.list().length === 0 && jobs?.list().length === 0 && this.queue.length === 0) {
      this.metrics.lastReconcile.set(Date.now() / 1000);
    }
  }

  /**
   * A report-token Secret changed. Our own batches only add keys; a key or a whole Secret removed
   * by hand is put back by reconciling the ScheduledJobs whose key is now missing.
   */
  private tokenSecretChanged(secret: V1Secret, event: 'add' | 'update' | 'delete'): void {
    if (!secret.metadata?.labels?.[LABEL_REPORT_TOKENS]) return;
    this.tokens.seen(secret);
    const namespace = secret.metadata.namespace ?? '';
    for (const resource of this.informers?.scheduledJobs.list(namespace) ?? []) {
      const jobId = resource.status?.jobId;
      if (typeof jobId !== 'number') continue;
      const { secretName, key } = reportTokenLocation(jobId);
      if (secretName !== secret.metadata.name) continue;
      if (event === 'delete' || !secret.data?.[key]) this.enqueue('sj', resource);
    }
  }

  private enqueue(kind: Kind, object: KubernetesObject): void {
    const { namespace, name } = object.metadata ?? {};
    if (namespace && name) this.queue.add(`${kind}/${namespace}/${name}`);
    this.metrics.queueDepth.set(this.queue.length);
  }

  private async reconcile(kind: Kind, namespace: string, name: string): Promise<ReconcileResult> {
    if (isWatchedKind(kind)) return this.watched?.reconcile(kind, namespace, name) ?? {};
    return kind === 'sj'
      ? this.scheduledJobReconciler.reconcile(namespace, name)
      : this.runReconciler.reconcile(namespace, name);
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === null) return;
      const [kind, namespace = '', name = ''] = key.split('/');
      try {
        const result: ReconcileResult = await this.reconcile(kind as Kind, namespace, name);
        this.queue.forget(key);
        if (result.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
        this.metrics.reconciles.inc({ kind, result: 'success' });
        this.metrics.lastReconcile.set(Date.now() / 1000);
      } catch (error) {
        const delayMs = this.queue.addRateLimited(key);
        this.metrics.reconciles.inc({ kind, result: 'error' });
        this.options.logger.warn('reconcile failed; will retry', { key, delayMs, err: error });
      } finally {
        this.queue.done(key);
        this.metrics.queueDepth.set(this.queue.length);
      }
    }
  }
}
