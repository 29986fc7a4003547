import type { KubeConfig } from '@kubernetes/client-node';
import type { Pool } from 'pg';
import type { JobAlertsSync } from '../../alerts/alertConfigService';
import type { Clock } from '../../domain/clock';
import type { ClusterClient } from '../../kube/clusterClient';
import type { CronJobWatch } from '../../kube/resources/cronJobWatch';
import type { Logger } from '../../logging/logger';
import { ClusterRunRecorder } from '../../scheduling/clusterRunRecorder';
import type { ExecutionRecorder } from '../../scheduling/executionRecorder';
import { namespacesOfWatchedJobs } from '../../store/watchedCronJobJobs';
import type { CachedInformer } from '../runtime/informer';
import type { ReconcileResult } from '../scheduledJobs/scheduledJobReconciler';
import { CronJobWatchReconciler } from './cronJobWatchReconciler';
import { LOG_READ_TIMEOUT_MS, LOG_TAIL_LINES, PodLogs } from './podLogs';
import { warningsOf } from './runWarnings';
import { startWatchesInformer } from './watchedInformers';
import { WatchedNamespaces } from './watchedNamespaces';
import { WatchedRunReconciler } from './watchedRunReconciler';

/**
 * The work queue's kinds for watched CronJobs: a namespace's CronJobWatches (`watch`, the name
 * unused), one CronJob (`cj`), one Job's run (`wrun`).
 */
export type WatchedKind = 'watch' | 'cj' | 'wrun';

export function isWatchedKind(kind: string): kind is WatchedKind {
  return kind === 'watch' || kind === 'cj' || kind === 'wrun';
}

export interface WatchedCronJobsDeps {
  kubeConfig: KubeConfig;
  cluster: ClusterClient;
  /** The namespace watched; null for all. */
  namespace: string | null;
  pool: Pool;
  recorder: ExecutionRecorder;
  alerts: JobAlertsSync;
  clock: Clock;
  logger: Logger;
  defaultTimeZone: string;
  /** Adds a key (`kind/namespace/name`) to the controller's work queue. */
  enqueue: (key: string) => void;
}

/**
 * What the controller does for the CronJobs CronJobWatches select (issue 40, docs/watched-cronjobs.md):
 * its caches, the selection's reconciler and the runs' recorder, on the controller's work queue.
 * Only the CronJobWatches are watched everywhere; the CronJobs, Jobs and pods only in the
 * namespaces that hold one (watchedNamespaces.ts). The caches are waited for apart from the
 * ScheduledJobs' (`startWhenSynced`), so that a cluster without the CronJobWatch CRD, or the RBAC to
 * read it, keeps its ScheduledJobs going.
 */
export class WatchedCronJobs {
  private readonly watches: CachedInformer<CronJobWatch>;
  private readonly namespaces: WatchedNamespaces;
  private readonly selection: CronJobWatchReconciler;
  private readonly runs: WatchedRunReconciler;
  /**
   * Whether the CronJobWatches are listed: until then the work waits (a namespace judged without
   * its watches would stop watching its CronJobs).
   */
  private watchesListed = false;
  private stopped = false;

  constructor(private readonly deps: WatchedCronJobsDeps) {
    const { cluster, namespace, kubeConfig, logger, enqueue } = deps;
    const informerDeps = { cluster, kubeConfig, logger };
    this.watches = startWatchesInformer(informerDeps, namespace, (changed) => enqueue(`watch/${changed}/-`));
    this.namespaces = new WatchedNamespaces(informerDeps, {
      cronJobChanged: (changed, name) => enqueue(`cj/${changed}/${name}`),
      jobChanged: (job, event) => {
        if (event !== 'delete' || this.runs.jobDeleted(job)) this.enqueueRun(job.metadata);
      },
      podChanged: (pod, event) => {
        if (event === 'delete') this.runs.podDeleted(pod);
        else this.runs.podChanged(pod);
        const owner = pod.metadata?.ownerReferences?.find((ref) => ref.kind === 'Job');
        if (owner) this.enqueueRun({ namespace: pod.metadata?.namespace, name: owner.name });
      },
    });
    const { cronJobs, jobs, pods } = this.namespaces;
    this.selection = new CronJobWatchReconciler({
      pool: deps.pool,
      cluster,
      caches: { watches: this.watches, cronJobs },
      alerts: deps.alerts,
      clock: deps.clock,
      logger,
    });
    this.runs = new WatchedRunReconciler({
      pool: deps.pool,
      caches: { watches: this.watches, cronJobs, jobs, pods },
      recorder: deps.recorder,
      skips: new ClusterRunRecorder(deps.recorder),
      logs: new PodLogs((podNamespace, pod, container) =>
        cluster.readPodLogTail(podNamespace, pod, container, LOG_TAIL_LINES, LOG_READ_TIMEOUT_MS),
      ),
      warnings: (runNamespace, uids) => warningsOf(cluster, runNamespace, uids),
      clock: deps.clock,
      logger,
      defaultTimeZone: deps.defaultTimeZone,
    });
  }

  /** Resolves once the watches, and the caches of every namespace opened so far, hold what exists. */
  async synced(): Promise<void> {
    await this.watches.synced;
    await this.namespaces.synced();
  }

  /** The work starts once the CronJobWatches are listed, with every namespace there is to look at. */
  startWhenSynced(): void {
    void this.watches.synced.then(() => {
      if (this.stopped) return;
      this.watchesListed = true;
      return this.visitEveryNamespace();
    });
  }

  async reconcile(kind: WatchedKind, namespace: string, name: string): Promise<ReconcileResult> {
    // Until the watches are listed the work waits: all of it is asked for then (startWhenSynced).
    if (!this.watchesListed) return {};
    if (kind === 'watch') return this.reconcileNamespace(namespace);
    // Until the namespace's caches are filled, its pass waits for them and then does this too.
    if (!this.namespaces.isFilled(namespace)) return {};
    if (kind === 'wrun') return this.runs.reconcile(namespace, name);
    // A CronJob's selection changed: the namespace's pass counts it in the watches' statuses and
    // looks at the namespace's Jobs again, so the Jobs it made before are recorded now. One pass
    // for many CronJobs labelled at once (the queue holds the key once), not a walk of every Job each.
    if (await this.selection.reconcileCronJob(namespace, name)) this.deps.enqueue(`watch/${namespace}/-`);
    return {};
  }

  /** Every selection and Job again: a missed event cannot leave anything behind. */
  resync(): void {
    if (this.watchesListed) void this.visitEveryNamespace();
    for (const job of this.namespaces.jobs.list()) this.enqueueRun(job.metadata);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.watches.stop();
    await this.namespaces.stop();
  }

  /**
   * A namespace's CronJobWatches and CronJobs: its caches opened with its first watch (the pass
   * waits for them to fill), its CronJobs watched as selected, its caches closed with its last.
   */
  private async reconcileNamespace(namespace: string): Promise<ReconcileResult> {
    const holdsWatches = this.watches.list(namespace).length > 0;
    const again = () => this.deps.enqueue(`watch/${namespace}/-`);
    if (holdsWatches && !this.namespaces.ensureOpen(namespace, again)) return {};
    await this.selection.reconcile(namespace);
    if (holdsWatches) {
      this.reconcileRuns(namespace);
      return {};
    }
    // Its last watch went: its CronJobs are watched no more (above), and what was held for them goes.
    this.runs.forgetNamespace(namespace, this.namespaces.pods.list(namespace));
    await this.namespaces.close(namespace);
    return {};
  }

  /**
   * Asks for a pass of every namespace that holds a watch, and of every one whose CronJobs the
   * database has as watched (a watch deleted while no controller led stops being obeyed there).
   */
  private async visitEveryNamespace(): Promise<void> {
    const namespaces = new Set(this.watches.list().map((watch) => watch.metadata?.namespace ?? ''));
    try {
      for (const recorded of await namespacesOfWatchedJobs(this.deps.pool)) {
        if (this.deps.namespace === null || recorded === this.deps.namespace) namespaces.add(recorded);
      }
    } catch (error) {
      // The next resync asks again; the namespaces with a watch are looked at meanwhile.
      this.deps.logger.warn('could not list the namespaces of watched CronJobs', { err: error });
    }
    for (const namespace of namespaces) this.deps.enqueue(`watch/${namespace}/-`);
  }

  /**
   * The CronJobs' Jobs of a namespace to look at again: a CronJob selected after its Jobs were made
   * has their runs recorded then. Those recorded already are skipped.
   */
  private reconcileRuns(namespace: string): void {
    for (const job of this.namespaces.jobs.list(namespace)) {
      if (job.metadata?.ownerReferences?.some((ref) => ref.kind === 'CronJob')) this.enqueueRun(job.metadata);
    }
  }

  private enqueueRun(metadata: { namespace?: string; name?: string } | undefined): void {
    if (metadata?.namespace && metadata.name)
      this.deps.enqueue(`wrun/${metadata.namespace}/${metadata.name}`);
  }
}
