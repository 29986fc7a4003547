import type { ObjectCache, V1CronJob, V1Job, V1Pod } from '@kubernetes/client-node';
import type { Pool } from 'pg';
import type { Clock } from '../../domain/clock';
import type { Logger } from '../../logging/logger';
import type { CronJobWatch } from '../../kube/resources/cronJobWatch';
import type { ClusterRunRecorder } from '../../scheduling/clusterRunRecorder';
import type { ExecutionRecorder } from '../../scheduling/executionRecorder';
import { findWatchedJob } from '../../store/watchedCronJobJobs';
import { deletedJobOutcome } from '../runs/deletedJobOutcome';
import { type DeletedJob, DeletedJobs, seePods } from '../runs/deletedJobs';
import { finishedJob, jobNameForFireTime, neverStarted, skippedFireTimes } from '../runs/jobOutcome';
import { slotOfKubeJob } from '../runs/jobSlot';
import type { ReconcileResult } from '../scheduledJobs/scheduledJobReconciler';
import type { PodLogs } from './podLogs';
import { selectCronJobs } from './selection';
import { dropSpecAndStatus, isWhole, keepMetadataOnly } from './settledJobs';
import { type RunWarning, watchedAttempts } from './watchedAttempts';

export interface WatchedRunReconcilerDeps {
  pool: Pool;
  caches: {
    watches: ObjectCache<CronJobWatch>;
    cronJobs: ObjectCache<V1CronJob>;
    jobs: ObjectCache<V1Job>;
    pods: ObjectCache<V1Pod>;
  };
  recorder: ExecutionRecorder;
  /** Fire times a Forbid CronJob skipped while the run went on, recorded as `skipped`. */
  skips: ClusterRunRecorder;
  logs: PodLogs;
  /** The Warning events of these objects (a Job, its pods). */
  warnings: (namespace: string, uids: string[]) => Promise<RunWarning[]>;
  clock: Clock;
  logger: Logger;
  defaultTimeZone: string;
}

/** How soon a log that could not be read (the kubelet away) is tried again. */
const LOG_RETRY_MS = 2_000;
/** How soon a Job of a CronJob just selected is looked at again, once its job row exists. */
const ROW_PENDING_MS = 1_000;

/**
 * Records the runs of watched CronJobs from what Kubernetes shows (issue 40): for each Job a
 * watched CronJob made (its schedule's, or `kubectl create job --from=cronjob/…`'s), once it has
 * ended, one execution per pod (watchedAttempts.ts) with the pod's log, read as each pod ends
 * (podLogs.ts), and the Warning events of the Job and its pods. Each attempt is keyed by the Job's
 * UID, so a restarted controller, or a resync, records none twice. A Job deleted before it was
 * recorded (a history limit, `ttlSecondsAfterFinished`, Replace, by hand) is recorded as last seen.
 */
export class WatchedRunReconciler {
  /** Jobs recorded (or none of a watched CronJob's), by UID, with their namespace: skipped until deleted. */
  private readonly settled = new Map<string, string>();
  private readonly deleted = new DeletedJobs();
  /** Pods deleted while their Job was not recorded yet, by the Job's UID. */
  private readonly podsGone = new Map<string, Map<string, V1Pod>>();

  constructor(private readonly deps: WatchedRunReconcilerDeps) {}

  /** A Job went: one not recorded yet is kept as last seen. Answers whether to reconcile it. */
  jobDeleted(kubeJob: V1Job): boolean {
    const uid = kubeJob.metadata?.uid ?? '';
    // A backfill's Job deleted while still suspended ran nothing: no run (not a failed one).
    if (this.settled.delete(uid) || !this.isWatched(kubeJob) || neverStarted(kubeJob, this.podsOf(kubeJob))) {
      this.podsGone.delete(uid);
      return false;
    }
    this.deleted.keep(kubeJob, uid, this.deps.clock.now(), this.podsOf(kubeJob));
    return true;
  }

  /** A pod went: its Job, if not recorded yet, keeps it as last seen, and its log, if unread, is gone. */
  podDeleted(pod: V1Pod): void {
    const owner = pod.metadata?.ownerReferences?.find((ref) => ref.kind === 'Job');
    if (!owner || this.settled.has(owner.uid)) return;
    // Only a watched CronJob's Job keeps its pods: every other Job's would be kept for good.
    const namespace = pod.metadata?.namespace ?? '';
    const kubeJob =
      this.deps.caches.jobs.get(owner.name, namespace) ??
      this.deleted.named(namespace, owner.name).find((gone) => gone.uid === owner.uid)?.job;
    if (!kubeJob || kubeJob.metadata?.uid !== owner.uid || !this.isWatched(kubeJob)) return;
    const uid = pod.metadata?.uid ?? '';
    this.podsGone.set(owner.uid, (this.podsGone.get(owner.uid) ?? new Map<string, V1Pod>()).set(uid, pod));
    this.deleted.podDeleted(pod);
    this.deps.logs.podGone(uid);
  }

  /** A pod changed: one of a recorded Job, back whole in the cache, is trimmed again (settledJobs.ts). */
  podChanged(pod: V1Pod): void {
    const owner = pod.metadata?.ownerReferences?.find((ref) => ref.kind === 'Job');
    if (owner && this.settled.has(owner.uid) && isWhole(pod)) dropSpecAndStatus(pod);
  }

  /**
   * The namespace is watched no more (its last CronJobWatch went, its caches with it): what was
   * held for its runs goes, `pods` (its pods as cached) their logs read so far with it.
   */
  forgetNamespace(namespace: string, pods: readonly V1Pod[]): void {
    for (const [uid, settledIn] of this.settled) if (settledIn === namespace) this.settled.delete(uid);
    const podUids = new Set(pods.map((pod) => pod.metadata?.uid ?? ''));
    for (const gone of this.deleted.letGoNamespace(namespace))
      for (const uid of gone.pods.keys()) podUids.add(uid);
    for (const [uid, podsGone] of this.podsGone) {
      const first = podsGone.values().next().value;
      if (first?.metadata?.namespace !== namespace) continue;
      this.podsGone.delete(uid);
      for (const podUid of podsGone.keys()) podUids.add(podUid);
    }
    this.deps.logs.forget(podUids);
  }

  async reconcile(namespace: string, name: string): Promise<ReconcileResult> {
    return this.deleted.reconcileNamed(
      namespace,
      name,
      this.deps.caches.jobs.get(name, namespace),
      (job, gone) => this.reconcileRun(job, gone),
    );
  }

  private async reconcileRun(kubeJob: V1Job, gone: DeletedJob | undefined): Promise<ReconcileResult> {
    const uid = kubeJob.metadata?.uid ?? '';
    const namespace = kubeJob.metadata?.namespace ?? '';
    if (this.settled.has(uid)) {
      // Only a Job an event brought back whole: a namespace's pass looks at every recorded Job,
      // and a trim walks the namespace's pods (a pod brought back alone: podChanged).
      if (!gone && isWhole(kubeJob)) keepMetadataOnly(kubeJob, this.deps.caches);
      return {};
    }
    const cronJobName = this.watchedCronJobOf(kubeJob);
    if (cronJobName === null) return gone ? this.settle(kubeJob, gone) : {};
    const job = await findWatchedJob(this.deps.pool, namespace, cronJobName);
    if (!job?.cronJob?.watchedBy) return { requeueAfterMs: ROW_PENDING_MS };

    const pods = gone ? this.lastPodsOf(gone) : this.podsOf(kubeJob);
    let unread = false;
    for (const pod of pods) {
      if (!(await this.deps.logs.readIfEnded(pod)) && !gone) unread ||= podEnded(pod);
    }
    const cronJob = this.deps.caches.cronJobs.get(cronJobName, namespace);
    const finished =
      finishedJob(kubeJob) ?? (gone ? deletedJobOutcome(kubeJob, gone.deletedAt, cronJob) : null);
    if (!finished) return unread ? { requeueAfterMs: LOG_RETRY_MS } : {};

    const podUids = pods.map((pod) => pod.metadata?.uid ?? '');
    let warnings: RunWarning[] = [];
    let warningsNote: string | null = null;
    try {
      warnings = await this.deps.warnings(namespace, [uid, ...podUids]);
    } catch (error) {
      warningsNote = `the run's Warning events could not be read: ${(error as Error).message}`;
    }
    const slot = slotOfKubeJob(kubeJob, job, this.deps.defaultTimeZone);
    const attempts = watchedAttempts(finished, pods, this.deps.logs.logsOf(pods), warnings, warningsNote);
    for (const { final, ...attempt } of attempts) {
      await this.deps.recorder.recordFinished(
        job,
        { ...attempt, reportKey: `watched:${uid}:${attempt.attempt}`, slot },
        final,
      );
    }
    if (cronJob?.metadata?.uid) {
      // One the CronJob controller starts late once this run ended is a run of its slot: the
      // judge counts that run first, whatever was recorded as skipped.
      const startedLate = (fireTime: Date) =>
        this.deps.caches.jobs.get(jobNameForFireTime(cronJobName, fireTime), namespace) !== undefined;
      for (const fireTime of skippedFireTimes(cronJob, kubeJob, finished, startedLate)) {
        await this.deps.skips.recordSkipped(job, cronJob.metadata.uid, fireTime, this.deps.clock.now());
      }
    }
    this.deps.logger.info('recorded a run of a watched CronJob', {
      cronJob: `${namespace}/${cronJobName}`,
      kubernetesJob: kubeJob.metadata?.name,
      status: finished.status,
      attempts: attempts.length,
    });
    this.deps.logs.forget(podUids);
    return this.settle(kubeJob, gone);
  }

  private settle(kubeJob: V1Job, gone: DeletedJob | undefined): ReconcileResult {
    const uid = kubeJob.metadata?.uid ?? '';
    this.podsGone.delete(uid);
    if (gone) this.deleted.letGo(gone);
    else {
      this.settled.set(uid, kubeJob.metadata?.namespace ?? '');
      keepMetadataOnly(kubeJob, this.deps.caches);
    }
    return {};
  }

  /** The name of the watched CronJob that made the Job, or null when it is none's. */
  private watchedCronJobOf(kubeJob: V1Job): string | null {
    const owner = kubeJob.metadata?.ownerReferences?.find((ref) => ref.kind === 'CronJob');
    if (!owner) return null;
    const namespace = kubeJob.metadata?.namespace ?? '';
    const cronJob = this.deps.caches.cronJobs.get(owner.name, namespace);
    if (!cronJob || cronJob.metadata?.uid !== owner.uid) return null;
    return selectCronJobs(this.deps.caches.watches.list(namespace), [cronJob]).has(owner.name)
      ? owner.name
      : null;
  }

  private isWatched(kubeJob: V1Job): boolean {
    return this.watchedCronJobOf(kubeJob) !== null;
  }

  /** The Job's pods: those the cache has, and those deleted since, as they went. */
  private podsOf(kubeJob: V1Job): V1Pod[] {
    const uid = kubeJob.metadata?.uid;
    const live = this.deps.caches.pods
      .list(kubeJob.metadata?.namespace)
      .filter((pod) => pod.metadata?.ownerReferences?.some((owner) => owner.uid === uid));
    const byUid = new Map(this.podsGone.get(uid ?? ''));
    for (const pod of live) byUid.set(pod.metadata?.uid ?? '', pod);
    return [...byUid.values()];
  }

  private lastPodsOf(gone: DeletedJob): V1Pod[] {
    seePods(gone, this.podsOf(gone.job));
    return [...gone.pods.values()];
  }
}

function podEnded(pod: V1Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}
