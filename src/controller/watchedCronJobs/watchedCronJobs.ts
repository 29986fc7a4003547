import type { KubeConfig } from '@kubernetes/client-node';
import type { Pool } from 'pg';
import type { JobAlertsSync } from '../../alerts/alertConfigService';
import type { Clock } from '../../domain/clock';
import type { ClusterClient } from '../../kube/clusterClient';
import type { Logger } from '../../logging/logger';
import { ClusterRunRecorder } from '../../scheduling/clusterRunRecorder';
import type { ExecutionRecorder } from '../../scheduling/executionRecorder';
import type { ReconcileResult } from '../scheduledJobs/scheduledJobReconciler';
import { CronJobWatchReconciler } from './cronJobWatchReconciler';
import { LOG_READ_TIMEOUT_MS, LOG_TAIL_LINES, PodLogs } from './podLogs';
import { warningsOf } from './runWarnings';
import { startWatchedCronJobInformers, type WatchedCronJobInformers } from './watchedInformers';
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
 * its caches, the selection's reconciler and the runs' recorder, on the controller's work queue. Its
 * caches are waited for apart from the ScheduledJobs' (`startWhenSynced`), so that a cluster without
 * the CronJobWatch CRD, or the RBAC to read it, keeps its ScheduledJobs going.
 */
export class WatchedCronJobs {
  private readonly informers: WatchedCronJobInformers;
  private readonly selection: CronJobWatchReconciler;
  private readonly runs: WatchedRunReconciler;
  /**
   * Whether the caches hold what exists: until then the work waits (a selection judged against a
   * half-filled cache of CronJobs would stop watching those not listed yet).
   */
  private cachesFilled = false;
  private stopped = false;

  constructor(private readonly deps: WatchedCronJobsDeps) {
    const { cluster, namespace, kubeConfig, logger, enqueue } = deps;
    this.informers = startWatchedCronJobInformers(
      { cluster, namespace, kubeConfig, logger },
      {
        watchChanged: (changed) => enqueue(`watch/${changed}/-`),
        cronJobChanged: (changed, name) => enqueue(`cj/${changed}/${name}`),
        jobChanged: (job, event) => {
          if (event !== 'delete' || this.runs.jobDeleted(job)) this.enqueueRun(job.metadata);
        },
        podChanged: (pod, event) => {
          if (event === 'delete') this.runs.podDeleted(pod);
          const owner = pod.metadata?.ownerReferences?.find((ref) => ref.kind === 'Job');
          if (owner) this.enqueueRun({ namespace: pod.metadata?.namespace, name: owner.name });
        },
      },
    );
    this.selection = new CronJobWatchReconciler({
      pool: deps.pool,
      cluster,
      caches: { watches: this.informers.watches, cronJobs: this.informers.cronJobs },
      alerts: deps.alerts,
      clock: deps.clock,
      logger,
    });
    this.runs = new WatchedRunReconciler({
      pool: deps.pool,
      caches: this.informers,
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

  /** Resolves once every cache has listed what exists (tests wait for it). */
  synced(): Promise<void> {
    return this.informers.synced();
  }

  /** The work starts once the caches are filled, with every namespace that holds a watch or a CronJob. */
  startWhenSynced(): void {
    void this.informers.synced().then(() => {
      if (this.stopped) return;
      this.cachesFilled = true;
      const { watches, cronJobs } = this.informers;
      const namespaces = new Set(
        [...watches.list(), ...cronJobs.list()].map((o) => o.metadata?.namespace ?? ''),
      );
      for (const namespace of namespaces) this.deps.enqueue(`watch/${namespace}/-`);
    });
  }

  async reconcile(kind: WatchedKind, namespace: string, name: string): Promise<ReconcileResult> {
    // Until the caches are filled the work waits: all of it is asked for then (startWhenSynced).
    if (!this.cachesFilled) return {};
    switch (kind) {
      case 'watch':
        await this.selection.reconcile(namespace);
        this.reconcileRuns(namespace, null);
        return {};
      case 'wrun':
        return this.runs.reconcile(namespace, name);
      case 'cj':
        // What is watched changed: the namespace's pass counts it in the watches' statuses, and
        // the Jobs the CronJob made before are looked at again (their runs are recorded now).
        if (await this.selection.reconcileCronJob(namespace, name)) {
          this.deps.enqueue(`watch/${namespace}/-`);
          this.reconcileRuns(namespace, name);
        }
        return {};
    }
  }

  /** Every selection and Job again: a missed event cannot leave anything behind. */
  resync(): void {
    for (const watch of this.informers.watches.list())
      this.deps.enqueue(`watch/${watch.metadata?.namespace}/-`);
    for (const job of this.informers.jobs.list()) this.enqueueRun(job.metadata);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.informers.stop();
  }

  /**
   * The Jobs of a namespace (of one CronJob, when named) to look at again: a CronJob selected
   * after its Jobs were made has their runs recorded then. Those recorded already are skipped.
   */
  private reconcileRuns(namespace: string, cronJobName: string | null): void {
    for (const job of this.informers.jobs.list(namespace)) {
      const owner = job.metadata?.ownerReferences?.find((ref) => ref.kind === 'CronJob');
      if (owner && (cronJobName === null || owner.name === cronJobName)) this.enqueueRun(job.metadata);
    }
  }

  private enqueueRun(metadata: { namespace?: string; name?: string } | undefined): void {
    if (metadata?.namespace && metadata.name)
      this.deps.enqueue(`wrun/${metadata.namespace}/${metadata.name}`);
  }
}
