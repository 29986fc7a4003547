import type { ObjectCache, V1CronJob, V1Job, V1Pod } from '@kubernetes/client-node';
import type { Pool } from 'pg';
import type { Clock } from '../../domain/clock';
import type { FailureReason } from '../../domain/execution';
import type { Logger } from '../../logging/logger';
import type { RunInProgress } from '../../alerts/policy/overruns';
import type { ClusterRunRecorder } from '../../scheduling/clusterRunRecorder';
import { findJob } from '../../store/jobs';
import { wasRunPrevented } from '../../store/preventedRuns';
import { LABEL_JOB_ID } from '../../kube/labels';
import type { ReconcileResult } from '../scheduledJobs/scheduledJobReconciler';
import {
  ENDED_BEFORE_START_ANNOTATION,
  type FinishedJob,
  finishedJob,
  jobNameForFireTime,
  neverStarted,
  runStartedAt,
  skippedFireTimes,
} from './jobOutcome';
import { deletedJobOutcome } from './deletedJobOutcome';
import { type DeletedJob, DeletedJobs, seePods } from './deletedJobs';
import { slotOfKubeJob } from './jobSlot';
import { diagnosePods } from './podDiagnosis';
import { startVerdict } from './startDeadline';

export interface RunReconcilerDeps {
  pool: Pool;
  caches: { jobs: ObjectCache<V1Job>; cronJobs: ObjectCache<V1CronJob>; pods: ObjectCache<V1Pod> };
  runs: ClusterRunRecorder;
  clock: Clock;
  logger: Logger;
  /** The time zone of jobs without one (SERVICE_TIMEZONE): a Job's slot is read in its job's zone. */
  defaultTimeZone: string;
  /**
   * How long after a Job ends its pod's final report may still arrive (it retries with backoff);
   * 30 s by default.
   */
  reportGraceMs?: number;
  /** The alert policy's `overrun` (runs still going past the job's `maxDurationSeconds`). */
  overruns?: { raiseIfDue(run: RunInProgress): Promise<{ dueInMs: number | null }> };
  /**
   * Asks for ScheduledJob `name`'s status to be brought up to date (a failure to show in
   * `lastFailureTime` and `lastFailureReason`).
   */
  refreshStatus?: (namespace: string, name: string) => void;
  /** Writes to a Kubernetes Job (a merge patch): how a run that cannot start is ended. */
  patchJob: (namespace: string, name: string, patch: object) => Promise<unknown>;
  /** How long a run may be stuck before it could start (startDeadline.ts); tests shorten it. */
  startDeadlineMs?: number;
}

const DEFAULT_REPORT_GRACE_MS = 30_000;

/**
 * Makes sure that no run goes unrecorded. For each finished Kubernetes Job of a ScheduledJob:
 * - a run whose pod never reported its outcome (it failed before the runner started, ran past its
 *   deadline, was evicted, or lost its report) is recorded from the Job's conditions, once the
 *   report has had time to arrive;
 * - fire times the CronJob controller skipped while the Job was active are recorded as `skipped`;
 * - a Job whose runner was refused its slot (another run had claimed it) ran nothing: nothing is
 *   recorded for it.
 * Both are keyed (by the Job's and the CronJob's UIDs), so any number of passes records each once.
 * While a Job runs, it is the run whose `overrun` the alert policy raises once it has gone on past
 * the job's `maxDurationSeconds` (keyed by the Job's UID too, so a restart never raises it twice).
 * While the Job runs and as it ends, what its pods say (OOMKilled, Evicted, ImagePullBackOff,
 * Unschedulable...: podDiagnosis.ts) is kept for the run, and reaches its final execution whether
 * the pod's report came first or comes later; a pending pod that the Job controller deletes at the
 * deadline has said it before. A run stuck before it could start (its image, a missing Secret, a
 * pod the API server refuses) is ended once it has waited `RUN_START_DEADLINE_MS`, so that it does
 * not hold its CronJob's schedule forever (startDeadline.ts).
 * A Job deleted before its run was settled is kept as last seen, with its pods, and its run is
 * recorded from that just the same (deletedJobOutcome.ts): the CronJob controller deletes finished
 * Jobs past its history limits within a second of their end, and, under `concurrencyPolicy:
 * Replace`, the active one when the next fire time comes.
 */
export class RunReconciler {
  /** Jobs whose outcome is settled in the database: later passes (resyncs) skip them. */
  private readonly settled = new Set<string>();
  /** Jobs noted as their job's runs (`registerRun`), so each is written once per process. */
  private readonly seen = new Set<string>();
  /** Per Job, what was last noted of its pods (and whether it had ended): written when it changes. */
  private readonly noted = new Map<string, string>();
  /** Jobs deleted before their runs were settled, as last seen: their runs are recorded from these. */
  private readonly deleted = new DeletedJobs();

  private readonly reportGraceMs: number;

  constructor(private readonly deps: RunReconcilerDeps) {
    this.reportGraceMs = deps.reportGraceMs ?? DEFAULT_REPORT_GRACE_MS;
  }

  /** Forgets a deleted Job. */
  private forget(uid: string): void {
    this.settled.delete(uid);
    this.seen.delete(uid);
    this.noted.delete(uid);
  }

  /**
   * A Job was deleted (the event carries its final state). One whose run is settled, or that is no
   * job's run, is forgotten; any other is kept as last seen, with its pods, until its run is
   * settled. Answers whether to reconcile it.
   */
  jobDeleted(kubeJob: V1Job): boolean {
    const uid = kubeJob.metadata?.uid;
    if (!uid) return false;
    const pods = this.podsOf(kubeJob);
    const ranNothing = neverStarted(kubeJob, pods);
    if (ranNothing) {
      this.deps.logger.debug('a Kubernetes Job deleted before it ever started ran nothing', {
        kubernetesJob: `${kubeJob.metadata?.namespace}/${kubeJob.metadata?.name}`,
        runUid: uid,
      });
    }
    if (this.settled.has(uid) || jobIdOf(kubeJob) === null || ranNothing) {
      this.forget(uid);
      return false;
    }
    this.deleted.keep(kubeJob, uid, this.deps.clock.now(), pods);
    return true;
  }

  /** A pod was deleted: the deleted Job it belongs to, if any, keeps its final state. */
  podDeleted(pod: V1Pod): void {
    this.deleted.podDeleted(pod);
  }

  /** The runs of the Jobs named so: the deleted ones' not settled yet, and the one that exists. */
  async reconcile(namespace: string, name: string): Promise<ReconcileResult> {
    return this.deleted.reconcileNamed(
      namespace,
      name,
      this.deps.caches.jobs.get(name, namespace),
      (job, gone) => this.reconcileRun(job, gone),
    );
  }

  /** One Job's run; `gone`: the Job was deleted, and this is what was last seen of it. */
  private async reconcileRun(kubeJob: V1Job, gone: DeletedJob | undefined): Promise<ReconcileResult> {
    const metadata = kubeJob.metadata;
    const uid = metadata?.uid;
    if (!metadata || !uid) return {};
    const jobId = jobIdOf(kubeJob);
    if (this.settled.has(uid) || jobId === null) return gone ? this.settle(kubeJob, gone, false) : {};
    // Whose run this is, as only the controller knows it (it wrote the label): from now on a report
    // sent with another job's token that names the run is refused.
    if (!this.seen.has(uid)) {
      await this.deps.runs.registerRun(jobId, uid);
      this.seen.add(uid);
    }
    const pods = gone ? this.lastPodsOf(gone) : this.podsOf(kubeJob);
    const seen = diagnosePods(pods);
    const finished = finishedJob(kubeJob);
    if (gone && !finished) return this.reconcileDeletedWhileActive(kubeJob, gone, jobId, seen);
    // Alerts wait only for failed runs: a Job that failed has ended for them. One past its deadline
    // was stopped by the cluster, which is what its pod's runner, stopped too, could not say.
    await this.notePods(
      kubeJob,
      jobId,
      uid,
      seen,
      finished !== null && finished.status !== 'success',
      finished?.status === 'timeout' ? finished.reason : null,
    );
    if (!finished) {
      const start = await this.endIfStuckBeforeStart(kubeJob, jobId, uid, pods, seen);
      const overrun = await this.watchOverrun(jobId, kubeJob, uid);
      const waits = [start.requeueAfterMs, overrun.requeueAfterMs].filter((ms) => ms !== undefined);
      return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : {};
    }
    return this.recordIfUnreported(kubeJob, gone, jobId, finished);
  }

  /**
   * A Job deleted before it finished (replaced by a newer run, or deleted by hand): its run ended
   * when it was deleted. Its pod may still report (its runner is stopped too): the run is recorded
   * once that report has had its grace, and the alerts of one that came wait for it no longer.
   */
  private async reconcileDeletedWhileActive(
    kubeJob: V1Job,
    gone: DeletedJob,
    jobId: number,
    seen: FailureReason | null | undefined,
  ): Promise<ReconcileResult> {
    const over = this.deps.clock.now().getTime() - gone.deletedAt.getTime() >= this.reportGraceMs;
    await this.notePods(kubeJob, jobId, gone.uid, seen, over, null);
    return this.recordIfUnreported(
      kubeJob,
      gone,
      jobId,
      deletedJobOutcome(kubeJob, gone.deletedAt, this.cronJobOf(kubeJob)),
    );
  }

  /** Records the run of a finished (or deleted) Job as it ended, unless its pod's report came. */
  private async recordIfUnreported(
    kubeJob: V1Job,
    gone: DeletedJob | undefined,
    jobId: number,
    finished: FinishedJob,
  ): Promise<ReconcileResult> {
    const metadata = kubeJob.metadata ?? {};
    const uid = metadata.uid ?? '';
    const namespace = metadata.namespace ?? '';
    const name = metadata.name ?? '';
    const job = await findJob(this.deps.pool, jobId);
    if (!job) return gone ? this.settle(kubeJob, gone, false) : {};
    const now = this.deps.clock.now();

    // The grace also lets the CronJob controller start a fire time it missed late (see
    // skippedFireTimes): it does so as soon as it sees the Job end.
    const waited = now.getTime() - finished.finishedAt.getTime();
    if (waited < this.reportGraceMs) return { requeueAfterMs: this.reportGraceMs - waited };

    const cronJob = this.cronJobOf(kubeJob);
    if (cronJob?.metadata?.uid) {
      const cronJobName = cronJob.metadata.name ?? '';
      const startedLate = (fireTime: Date) =>
        this.deps.caches.jobs.get(jobNameForFireTime(cronJobName, fireTime), namespace) !== undefined;
      for (const fireTime of skippedFireTimes(cronJob, kubeJob, finished, startedLate)) {
        await this.deps.runs.recordSkipped(job, cronJob.metadata.uid, fireTime, now);
      }
    }
    const slot = slotOfKubeJob(kubeJob, job, this.deps.defaultTimeZone);
    // A second Job for a claimed slot ran nothing (its runner was refused the slot): no run to record.
    if (
      slot &&
      (await wasRunPrevented(this.deps.pool, { jobId, scheduledAt: slot.scheduledAt, runKey: uid }))
    ) {
      return this.settle(kubeJob, gone, false);
    }
    const recorded = await this.deps.runs.recordUnreported(job, {
      runUid: uid,
      status: finished.status,
      startedAt: finished.startedAt,
      finishedAt: finished.finishedAt,
      attempt: 0,
      reason: finished.reason,
      slot,
    });
    if (recorded && recorded.status !== 'success') this.refreshStatusOf(kubeJob);
    if (recorded) {
      this.deps.logger.warn('recorded a run that did not report its outcome', {
        job: job.name,
        kubernetesJob: `${namespace}/${name}`,
        status: finished.status,
        reason: finished.reason,
        ...(gone ? { jobDeleted: true } : {}),
      });
    }
    return this.settle(kubeJob, gone, recorded !== null);
  }

  /**
   * The Job's run is settled: an existing Job is skipped from now on (until it is deleted); a
   * deleted one is let go and forgotten.
   */
  private settle(kubeJob: V1Job, gone: DeletedJob | undefined, recorded: boolean): ReconcileResult {
    const uid = kubeJob.metadata?.uid ?? '';
    this.noted.delete(uid);
    if (!gone) {
      this.settled.add(uid);
      return {};
    }
    this.deleted.letGo(gone);
    this.forget(uid);
    this.deps.logger.debug('settled the run of a deleted Kubernetes Job', {
      kubernetesJob: `${kubeJob.metadata?.namespace}/${kubeJob.metadata?.name}`,
      runUid: uid,
      recorded,
    });
    return {};
  }

  /** The pods of a Job, as the cache has them. */
  private podsOf(kubeJob: V1Job): V1Pod[] {
    const uid = kubeJob.metadata?.uid;
    return this.deps.caches.pods
      .list(kubeJob.metadata?.namespace)
      .filter((pod) => pod.metadata?.ownerReferences?.some((owner) => owner.uid === uid));
  }

  /** The pods of a deleted Job as last seen: those the cache still has, the others as they went. */
  private lastPodsOf(gone: DeletedJob): V1Pod[] {
    seePods(gone, this.podsOf(gone.job));
    return [...gone.pods.values()];
  }

  /** The CronJob that owns a Kubernetes Job, as the cache has it. */
  private cronJobOf(kubeJob: V1Job): V1CronJob | undefined {
    const owner = kubeJob.metadata?.ownerReferences?.find((ref) => ref.kind === 'CronJob');
    return owner ? this.deps.caches.cronJobs.get(owner.name, kubeJob.metadata?.namespace) : undefined;
  }

  /**
   * Ends a run stuck before it could start once it has waited long enough (startVerdict): its Job's
   * `activeDeadlineSeconds` is set to what it has been active, so that the Job controller fails it
   * at once and deletes its pod, as at any deadline, and the Job is marked as ended before its run
   * started (it failed, not timed out). A Job with no pod has no pod to say why: the reason is kept
   * for the run here.
   */
  private async endIfStuckBeforeStart(
    kubeJob: V1Job,
    jobId: number,
    uid: string,
    pods: readonly V1Pod[],
    seen: FailureReason | null | undefined,
  ): Promise<ReconcileResult> {
    const start = startVerdict(kubeJob, pods, seen, this.deps.clock.now(), this.deps.startDeadlineMs);
    if (start.verdict === 'fine') return {};
    if (start.verdict === 'wait') return { requeueAfterMs: start.inMs };
    const namespace = kubeJob.metadata?.namespace ?? '';
    const name = kubeJob.metadata?.name ?? '';
    if (pods.length === 0) await this.deps.runs.noteRunReason(jobId, uid, start.reason, false);
    await this.deps.patchJob(namespace, name, {
      metadata: { annotations: { [ENDED_BEFORE_START_ANNOTATION]: start.reason.code } },
      spec: { activeDeadlineSeconds: start.afterSeconds },
    });
    this.deps.logger.warn('ended a run that could not start', {
      kubernetesJob: `${namespace}/${name}`,
      reason: start.reason.code,
      message: start.reason.message,
    });
    return {};
  }

  /** Raises the run's overrun when its time has come, else comes back when it will have. */
  private async watchOverrun(jobId: number, kubeJob: V1Job, uid: string): Promise<ReconcileResult> {
    const startedAt = runStartedAt(kubeJob);
    if (!this.deps.overruns || !startedAt) return {};
    const { dueInMs } = await this.deps.overruns.raiseIfDue({ jobId, runKey: `run:${uid}`, startedAt });
    return dueInMs === null ? {} : { requeueAfterMs: dueInMs };
  }

  /**
   * Keeps what the Job's pods say for its run, when it changed since last noted here (once more as
   * the Job fails: that lets alerts that waited for it go). A failure shown in the ScheduledJob's
   * status is brought up to date.
   */
  private async notePods(
    kubeJob: V1Job,
    jobId: number,
    uid: string,
    seen: FailureReason | null | undefined,
    failed: boolean,
    endedBy: FailureReason | null,
  ): Promise<void> {
    const namespace = kubeJob.metadata?.namespace ?? '';
    // No pod yet, and nothing ended: nothing to say.
    if (seen === undefined && !failed) return;
    const ended = failed;
    const memo = `${ended}/${seen === undefined ? '?' : JSON.stringify(seen)}`;
    if (this.noted.get(uid) === memo) return;
    const given = await this.deps.runs.noteRunReason(jobId, uid, seen, ended, endedBy);
    this.noted.set(uid, memo);
    if (seen) {
      this.deps.logger.info('a run’s pod says why it failed', {
        kubernetesJob: `${namespace}/${kubeJob.metadata?.name}`,
        reason: seen.code,
        message: seen.message,
      });
    }
    if (given || ended) this.refreshStatusOf(kubeJob);
  }

  /** The ScheduledJob behind a Kubernetes Job: the owner of the CronJob that owns it. */
  private refreshStatusOf(kubeJob: V1Job): void {
    const namespace = kubeJob.metadata?.namespace ?? '';
    const cronJob = this.cronJobOf(kubeJob);
    const scheduledJob = cronJob?.metadata?.ownerReferences?.find((ref) => ref.kind === 'ScheduledJob');
    if (scheduledJob) this.deps.refreshStatus?.(namespace, scheduledJob.name);
  }
}

/** The job a Kubernetes Job is a run of, as the controller labelled it; null when it is no job's. */
function jobIdOf(kubeJob: V1Job): number | null {
  const jobId = Number(kubeJob.metadata?.labels?.[LABEL_JOB_ID]);
  return Number.isInteger(jobId) && jobId >= 1 ? jobId : null;
}
