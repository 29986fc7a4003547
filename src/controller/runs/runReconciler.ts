import type { ObjectCache, V1CronJob, V1Job } from '@kubernetes/client-node';
import type { Pool } from 'pg';
import type { Clock } from '../../domain/clock';
import type { Logger } from '../../logging/logger';
import type { RunInProgress } from '../../alerts/policy/overruns';
import type { ClusterRunRecorder } from '../../scheduling/clusterRunRecorder';
import { findJob } from '../../store/jobs';
import { wasRunPrevented } from '../../store/preventedRuns';
import { LABEL_JOB_ID } from '../../kube/labels';
import type { ReconcileResult } from '../scheduledJobs/scheduledJobReconciler';
import { finishedJob, jobNameForFireTime, runStartedAt, skippedFireTimes } from './jobOutcome';
import { slotOfKubeJob } from './jobSlot';

export interface RunReconcilerDeps {
  pool: Pool;
  caches: { jobs: ObjectCache<V1Job>; cronJobs: ObjectCache<V1CronJob> };
  runs: ClusterRunRecorder;
  clock: Clock;
  logger: Logger;
  /** The time zone of jobs without one (SERVICE_TIMEZONE): a Job's slot is read in its job's zone. */
  defaultTimeZone: string;
  /** How long after a Job ends its pod's final report may still arrive (it retries with backoff). */
  reportGraceMs?: number;
  /** The alert policy's `overrun` (runs still going past the job's `maxDurationSeconds`). */
  overruns?: { raiseIfDue(run: RunInProgress): Promise<{ dueInMs: number | null }> };
}

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
 */
export class RunReconciler {
  /** Jobs whose outcome is settled in the database: later passes (resyncs) skip them. */
  private readonly settled = new Set<string>();
  /** Jobs noted as their job's runs (`registerRun`), so each is written once per process. */
  private readonly seen = new Set<string>();

  constructor(private readonly deps: RunReconcilerDeps) {}

  /** Forgets a deleted Job. */
  forget(uid: string | undefined): void {
    if (!uid) return;
    this.settled.delete(uid);
    this.seen.delete(uid);
  }

  async reconcile(namespace: string, name: string): Promise<ReconcileResult> {
    const kubeJob = this.deps.caches.jobs.get(name, namespace);
    const metadata = kubeJob?.metadata;
    const uid = metadata?.uid;
    if (!kubeJob || !metadata || !uid || this.settled.has(uid)) return {};
    const jobId = Number(metadata.labels?.[LABEL_JOB_ID]);
    if (!Number.isInteger(jobId) || jobId < 1) return {};
    // Whose run this is, as only the controller knows it (it wrote the label): from now on a report
    // sent with another job's token that names the run is refused.
    if (!this.seen.has(uid)) {
      await this.deps.runs.registerRun(jobId, uid);
      this.seen.add(uid);
    }
    const finished = finishedJob(kubeJob);
    if (!finished) return this.watchOverrun(jobId, kubeJob, uid);
    const job = await findJob(this.deps.pool, jobId);
    if (!job) return {};
    const now = this.deps.clock.now();

    // The grace also lets the CronJob controller start a fire time it missed late (see
    // skippedFireTimes): it does so as soon as it sees the Job end.
    const waited = now.getTime() - finished.finishedAt.getTime();
    const grace = this.deps.reportGraceMs ?? 30_000;
    if (waited < grace) return { requeueAfterMs: grace - waited };

    const owner = metadata.ownerReferences?.find((ref) => ref.kind === 'CronJob');
    const cronJob = owner ? this.deps.caches.cronJobs.get(owner.name, namespace) : undefined;
    if (cronJob?.metadata?.uid) {
      const cronJobName = cronJob.metadata.name ?? owner!.name;
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
      this.settled.add(uid);
      return {};
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
    this.settled.add(uid);
    if (recorded) {
      this.deps.logger.warn('recorded a run that did not report its outcome', {
        job: job.name,
        kubernetesJob: `${namespace}/${name}`,
        status: finished.status,
        reason: finished.reason,
      });
    }
    return {};
  }

  /** Raises the run's overrun when its time has come, else comes back when it will have. */
  private async watchOverrun(jobId: number, kubeJob: V1Job, uid: string): Promise<ReconcileResult> {
    const startedAt = runStartedAt(kubeJob);
    if (!this.deps.overruns || !startedAt) return {};
    const { dueInMs } = await this.deps.overruns.raiseIfDue({ jobId, runKey: `run:${uid}`, startedAt });
    return dueInMs === null ? {} : { requeueAfterMs: dueInMs };
  }
}
