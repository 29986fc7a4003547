import type { ObjectCache, V1CronJob } from '@kubernetes/client-node';
import type { Pool } from 'pg';
import type { JobAlertsSync } from '../../alerts/alertConfigService';
import type { Clock } from '../../domain/clock';
import type { Job } from '../../domain/job';
import { DEFAULT_LATE_AFTER_SECONDS } from '../../domain/slots';
import type { Logger } from '../../logging/logger';
import type { ClusterClient } from '../../kube/clusterClient';
import { statusOf } from '../../kube/apiErrors';
import type { CronJobWatch } from '../../kube/resources/cronJobWatch';
import { alertConfigOfResource } from '../../kube/resources/alertShortcuts';
import { isUniqueViolation } from '../../store/database';
import { saveJobInLedger } from '../../store/slots';
import {
  findWatchedJob,
  listWatchedJobs,
  stopWatching,
  upsertWatchedJob,
  WATCHED_SUSPENDED_REASON,
} from '../../store/watchedCronJobJobs';
import { readSecretKeys } from '../scheduledJobs/jobAlerts';
import { selectCronJobs } from './selection';
import { watchedJobInput } from './watchedJobInput';
import { watchStatus, watchStatusDiffers } from './watchStatus';

/** The hold of a CronJob no selection holds any more: its slots are no one's to judge missed. */
const UNWATCHED_REASON = 'no CronJobWatch selected the CronJob at that time';

export interface CronJobWatchReconcilerDeps {
  pool: Pool;
  cluster: ClusterClient;
  caches: { watches: ObjectCache<CronJobWatch>; cronJobs: ObjectCache<V1CronJob> };
  alerts: JobAlertsSync;
  clock: Clock;
  logger: Logger;
}

/**
 * Makes the job rows of one namespace hold what its CronJobWatches select (issue 40): a row per
 * selected CronJob, mirrored from it (schedule, time zone, suspend), with its selection's alert
 * destinations and policy; a CronJob no selection holds any more is watched no more, its history
 * kept. The whole namespace at once, since one CronJob's selection depends on every watch there.
 * Nothing is written to the CronJobs: a watch only reads them.
 */
export class CronJobWatchReconciler {
  constructor(private readonly deps: CronJobWatchReconcilerDeps) {}

  /**
   * One CronJob changed (or went): its row alone. Answers whether what is watched changed (a CronJob
   * newly watched, refused, or let go), which the watches' statuses count: the namespace's pass then.
   */
  async reconcileCronJob(namespace: string, name: string): Promise<boolean> {
    const cronJob = this.deps.caches.cronJobs.get(name, namespace);
    const selected = cronJob
      ? selectCronJobs(this.deps.caches.watches.list(namespace), [cronJob]).get(name)
      : undefined;
    const before = await findWatchedJob(this.deps.pool, namespace, name);
    const wasWatched = before?.cronJob?.watchedBy != null;
    if (selected) {
      const problem = await this.watchOne(selected.cronJob, selected.watch).catch((error: unknown) => {
        if (isUniqueViolation(error)) return 'name taken';
        throw error;
      });
      return problem !== null || !wasWatched || before?.cronJob?.watchedBy !== selected.watch.metadata?.name;
    }
    if (!wasWatched) return false;
    const stopped = await stopWatching(this.deps.pool, namespace, name);
    if (stopped) await saveJobInLedger(this.deps.pool, stopped, this.deps.clock.now(), UNWATCHED_REASON);
    return true;
  }

  /** Every CronJob and CronJobWatch of the namespace, and the watches' statuses. */
  async reconcile(namespace: string): Promise<void> {
    const watches = this.deps.caches.watches.list(namespace);
    const selected = selectCronJobs(watches, this.deps.caches.cronJobs.list(namespace));
    const problems = new Map<string, string[]>();
    const watching = new Map<string, number>();
    const kept = new Set<string>();
    for (const [name, { cronJob, watch }] of selected) {
      const watchName = watch.metadata?.name ?? '';
      const problem = await this.watchOne(cronJob, watch).catch((error: unknown) => {
        if (isUniqueViolation(error)) return `CronJob ${name}: another job already has its name`;
        throw error;
      });
      if (problem) {
        problems.set(watchName, [...(problems.get(watchName) ?? []), problem]);
        continue;
      }
      kept.add(name);
      watching.set(watchName, (watching.get(watchName) ?? 0) + 1);
    }
    for (const job of await listWatchedJobs(this.deps.pool, namespace)) {
      const name = job.cronJob?.name ?? '';
      if (kept.has(name)) continue;
      const stopped = await stopWatching(this.deps.pool, namespace, name);
      if (stopped) await saveJobInLedger(this.deps.pool, stopped, this.deps.clock.now(), UNWATCHED_REASON);
      this.deps.logger.info('stopped watching a CronJob; its history stays', {
        cronJob: `${namespace}/${name}`,
      });
    }
    for (const watch of watches) {
      const name = watch.metadata?.name ?? '';
      await this.writeStatus(watch, watching.get(name) ?? 0, problems.get(name) ?? []);
    }
  }

  /** One selected CronJob's row, ledger and alerts; a problem that keeps it unwatched, else null. */
  private async watchOne(cronJob: V1CronJob, watch: CronJobWatch): Promise<string | null> {
    const namespace = cronJob.metadata?.namespace ?? '';
    const name = cronJob.metadata?.name ?? '';
    const outcome = watchedJobInput(
      cronJob,
      watch.spec?.lateAfterSeconds ?? DEFAULT_LATE_AFTER_SECONDS,
      watch.spec?.catchUp ?? null,
    );
    if (!outcome.ok) return `CronJob ${name}: ${outcome.message}`;
    const { job } = await upsertWatchedJob(
      this.deps.pool,
      {
        namespace,
        name,
        uid: cronJob.metadata?.uid ?? '',
        watchedBy: watch.metadata?.name ?? '',
        allowBackfill: watch.spec?.allowBackfill ?? false,
      },
      outcome.input,
      watch.spec?.history?.onRecreate ?? 'keep',
    );
    await saveJobInLedger(this.deps.pool, job, this.deps.clock.now(), WATCHED_SUSPENDED_REASON);
    return this.syncAlerts(watch, job);
  }

  /** The selection's destinations and policy, for the job; a Secret key missing is a problem. */
  private async syncAlerts(watch: CronJobWatch, job: Job): Promise<string | null> {
    const namespace = watch.metadata?.namespace ?? '';
    const secrets = await readSecretKeys(this.deps.cluster, namespace, watch.spec);
    try {
      const config = alertConfigOfResource(watch.spec, (ref) => secrets.get(`${ref.name}/${ref.key}`));
      await this.deps.alerts.sync(job.id, config);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }

  private async writeStatus(watch: CronJobWatch, watching: number, problems: string[]): Promise<void> {
    const desired = watchStatus(watch, watching, problems, this.deps.clock.now());
    if (!watchStatusDiffers(watch.status, desired)) return;
    try {
      await this.deps.cluster.patchCronJobWatchStatus(
        watch.metadata?.namespace ?? '',
        watch.metadata?.name ?? '',
        desired,
      );
    } catch (error) {
      // Deleted meanwhile: nothing to say.
      if (statusOf(error) !== 404) throw error;
    }
  }
}
