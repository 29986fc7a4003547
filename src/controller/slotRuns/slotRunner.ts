import type { ObjectCache, V1CronJob, V1Job } from '@kubernetes/client-node';
import type { Pool } from 'pg';
import type { Clock } from '../../domain/clock';
import type { Job } from '../../domain/job';
import { isPausedAt } from '../../domain/schedulerState';
import type { Logger } from '../../logging/logger';
import { findJob, listJobs } from '../../store/jobs';
import { resourceOfJob } from '../../store/resourceJobs';
import { readSchedulerState } from '../../store/scheduler';
import {
  type Backfill,
  finishBackfill,
  listUnfinishedBackfills,
  markBackfillStarted,
} from '../../store/slots';
import { statusOf } from '../../kube/apiErrors';
import type { ClusterClient } from '../../kube/clusterClient';
import { LABEL_JOB_ID } from '../../kube/labels';
import { cronJobNameFor } from '../../kube/cronJobName';
import { finishedJob } from '../runs/jobOutcome';
import { slotOfKubeJob } from '../runs/jobSlot';
import { slotsToCatchUpOnCluster } from './catchUpPlan';
import { BACKFILL_LABEL, slotRunJob, TRIGGER_ANNOTATION } from '../../kube/resources/slotRunJob';

export interface SlotRunnerDeps {
  pool: Pool;
  cluster: ClusterClient;
  caches: { jobs: ObjectCache<V1Job>; cronJobs: ObjectCache<V1CronJob> };
  clock: Clock;
  logger: Logger;
  defaultTimeZone: string;
  /** How often it looks for backfill and catch-up runs to start, besides when a run of theirs changes. */
  intervalMs?: number;
}

const DEFAULT_INTERVAL_MS = 5000;
/**
 * How long the service may take to create a backfill's Jobs as the caller (up to 1,000, a few at
 * a time) before the controller judges it stopped half-way.
 */
const CALLER_JOBS_CREATION_LIMIT_MS = 10 * 60_000;

/** Where a job's runs are made: its CronJob, whose template they run. */
type Target = { cronJob: V1CronJob; namespace: string } | 'gone' | 'not yet';

/**
 * The controller's part of the slot ledger (docs/slots-on-kubernetes.md): the Jobs that run slots
 * the CronJob controller did not. The leading controller alone runs it, so there is one writer.
 *
 * - Catch-up: when the controller takes the lead (it was down, or another replica was), it works out
 *   which missed slots each job's catch-up policy runs, and starts them one at a time per job, each
 *   once none of the job's runs is going.
 * - Backfill: the service records a backfill (`POST /api/jobs/:id/backfill`); this starts its slots
 *   in order, at most `concurrency` Jobs of it going at once, keeping its progress in the database,
 *   so that a controller taking over goes on where it stood. Under SERVICE_AUTH=kubernetes the
 *   service has created its Jobs already, suspended, with the caller's token: starting a slot is
 *   resuming its Job.
 *
 * Every Job it creates has a name fixed by its slot (slotRunJob.ts): creating one twice is refused
 * by the API server, and its runner claims the slot, so a slot never runs twice through it.
 */
export class SlotRunner {
  /** Slots each job's catch-up still has to start, oldest first. */
  private readonly catchUps = new Map<number, Date[]>();
  private timer: NodeJS.Timeout | undefined;
  private passing: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly deps: SlotRunnerDeps) {}

  /** The controller leads (its caches hold what exists): plans the catch-ups, then starts passing. */
  async start(): Promise<void> {
    try {
      await this.planCatchUps();
    } catch (error) {
      this.deps.logger.warn('could not work out the catch-up of missed slots', { err: error });
    }
    this.poke();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.passing;
  }

  /** A Kubernetes Job changed: a run of a backfill or a catch-up may have ended, so look again. */
  jobChanged(kubeJob: V1Job): void {
    if (this.catchUps.size > 0 || kubeJob.metadata?.annotations?.[TRIGGER_ANNOTATION]) this.poke();
  }

  /** Passes now, or right after the pass under way. */
  poke(): void {
    if (this.stopped) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.passing = this.pass()
      .catch((error) =>
        this.deps.logger.warn('could not start the runs of slots; will try again', { err: error }),
      )
      .finally(() => {
        this.passing = null;
        if (this.again) {
          this.again = false;
          this.poke();
        } else if (!this.stopped) {
          this.timer = setTimeout(() => this.poke(), this.deps.intervalMs ?? DEFAULT_INTERVAL_MS);
          this.timer.unref();
        }
      });
  }

  private async pass(): Promise<void> {
    await this.startCatchUps();
    await this.advanceBackfills();
  }

  private async planCatchUps(): Promise<void> {
    const { pool, clock, caches, defaultTimeZone } = this.deps;
    const now = clock.now();
    if (isPausedAt(await readSchedulerState(pool), now)) return;
    const jobs = (await listJobs(pool)).filter(
      (job) => job.enabled && job.catchUp && job.catchUp.policy !== 'none',
    );
    if (jobs.length === 0) return;
    const byId = new Map(jobs.map((job) => [job.id, job]));
    const clusterSlots = new Map<number, Set<number>>();
    for (const kubeJob of caches.jobs.list()) {
      const job = byId.get(Number(kubeJob.metadata?.labels?.[LABEL_JOB_ID]));
      const slot = job ? slotOfKubeJob(kubeJob, job, defaultTimeZone) : null;
      if (!job || !slot || slot.trigger === 'backfill') continue;
      const slots = clusterSlots.get(job.id) ?? new Set<number>();
      clusterSlots.set(job.id, slots.add(slot.scheduledAt.getTime()));
    }
    const chosen = await slotsToCatchUpOnCluster(pool, { jobs, now, defaultTimeZone, clusterSlots });
    for (const [jobId, slots] of chosen) {
      this.deps.logger.info('catching up missed slots', {
        jobId,
        slots: slots.map((slot) => slot.toISOString()),
      });
      this.catchUps.set(jobId, slots);
    }
  }

  /** Starts each job's next catch-up run once none of the job's runs is going. */
  private async startCatchUps(): Promise<void> {
    if (this.catchUps.size === 0) return;
    // A pause holds them back: they start once it is over, as the schedule's runs do.
    if (isPausedAt(await readSchedulerState(this.deps.pool), this.deps.clock.now())) return;
    for (const [jobId, queue] of this.catchUps) {
      const target = await this.targetOf(jobId);
      if (target === 'gone') {
        this.catchUps.delete(jobId);
        continue;
      }
      if (target === 'not yet') continue;
      if ((await this.runsOf(jobId, target)).some((kubeJob) => !finishedJob(kubeJob))) continue;
      await this.create(
        target.namespace,
        slotRunJob(target.cronJob, { slot: queue[0]!, trigger: 'catchUp' }),
      );
      queue.shift();
      if (queue.length === 0) this.catchUps.delete(jobId);
    }
  }

  /**
   * Starts the next slots of each backfill while fewer than its concurrency of its Jobs are going:
   * resumes the suspended Jobs the caller's token made (`callerJobs`), else creates them.
   */
  private async advanceBackfills(): Promise<void> {
    for (const backfill of await listUnfinishedBackfills(this.deps.pool)) {
      if (backfill.callerJobs === 'creating') {
        await this.abandonIfStale(backfill);
        continue;
      }
      const target = await this.targetOf(backfill.jobId);
      if (target === 'gone') {
        await this.stopBackfill(backfill, 'its job was switched off or deleted');
        continue;
      }
      if (target === 'not yet') continue;
      const { items } = await this.deps.cluster.listJobs(
        target.namespace,
        `${BACKFILL_LABEL}=${backfill.id}`,
      );
      // A suspended Job is one made for a slot not started yet: it has no pod.
      let going = items.filter((kubeJob) => !finishedJob(kubeJob) && !kubeJob.spec?.suspend).length;
      let started = backfill.started;
      while (going < backfill.concurrency && started < backfill.slots.length) {
        const run = { slot: backfill.slots[started]!, trigger: 'backfill' as const, backfillId: backfill.id };
        const kubeJob = slotRunJob(target.cronJob, run);
        const began =
          backfill.callerJobs === 'created'
            ? await this.resume(target.namespace, kubeJob.metadata!.name!, backfill.id)
            : await this.create(target.namespace, kubeJob);
        started += 1;
        if (began) going += 1;
        await markBackfillStarted(this.deps.pool, backfill.id, started);
      }
      if (started >= backfill.slots.length && going === 0) {
        await finishBackfill(this.deps.pool, backfill.id, this.deps.clock.now());
      }
    }
  }

  /**
   * A backfill whose Jobs the service was still creating as the caller long after it was asked for
   * (the service stopped half-way) runs none of them, and no longer keeps its job's next backfill out.
   */
  private async abandonIfStale(backfill: Backfill): Promise<void> {
    const waited = this.deps.clock.now().getTime() - backfill.requestedAt.getTime();
    if (waited < CALLER_JOBS_CREATION_LIMIT_MS) return;
    await this.stopBackfill(backfill, 'the service stopped before it had created its Jobs');
  }

  /**
   * A backfill stopped: a switched-off job runs no more of it, nor does one whose Jobs were not all
   * made. Its Jobs still suspended (made by the caller's token) are deleted: they would never start.
   */
  private async stopBackfill(backfill: Backfill, why: string): Promise<void> {
    this.deps.logger.warn(`a backfill stopped: ${why}`, {
      backfillId: backfill.id,
      jobId: backfill.jobId,
      notRun: backfill.slots.length - backfill.started,
    });
    if (backfill.callerJobs !== null) {
      const job = await findJob(this.deps.pool, backfill.jobId);
      const namespace =
        job?.cronJob?.namespace ?? (await resourceOfJob(this.deps.pool, backfill.jobId))?.namespace;
      // A deleted job's CronJob took its Jobs with it (they are its dependents).
      if (namespace) await this.deleteSuspended(namespace, backfill.id);
    }
    await finishBackfill(this.deps.pool, backfill.id, this.deps.clock.now());
  }

  private async deleteSuspended(namespace: string, backfillId: number): Promise<void> {
    const { items } = await this.deps.cluster.listJobs(namespace, `${BACKFILL_LABEL}=${backfillId}`);
    for (const kubeJob of items.filter((each) => each.spec?.suspend)) {
      try {
        await this.deps.cluster.deleteJob(namespace, kubeJob.metadata?.name ?? '');
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
      }
    }
  }

  /**
   * Lets a suspended Job made by the caller's token run; whether it did. One deleted meanwhile (by
   * hand) runs nothing: its slot is passed over, and said so.
   */
  private async resume(namespace: string, name: string, backfillId: number): Promise<boolean> {
    try {
      await this.deps.cluster.patchJob(namespace, name, { spec: { suspend: false } });
      this.deps.logger.info('started the run of a slot', {
        kubernetesJob: `${namespace}/${name}`,
        backfillId,
      });
      return true;
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      this.deps.logger.warn('a Job of a backfill was deleted before it ran; its slot is not run', {
        kubernetesJob: `${namespace}/${name}`,
        backfillId,
      });
      return false;
    }
  }

  /** The CronJob a job's runs come from; `not yet` while the controller has not made it (or it is not watched). */
  private async targetOf(jobId: number): Promise<Target> {
    const job = await findJob(this.deps.pool, jobId);
    if (!job || !job.enabled) return 'gone';
    if (job.cronJob) return this.watchedTargetOf(job);
    const resource = await resourceOfJob(this.deps.pool, jobId);
    if (!resource) return 'not yet';
    const cronJob = this.deps.caches.cronJobs.get(cronJobNameFor(resource.name), resource.namespace);
    return cronJob ? { cronJob, namespace: resource.namespace } : 'not yet';
  }

  /**
   * A watched CronJob (issue 40) whose CronJobWatch allows Crondeck to start its Jobs (backfill, or
   * a catch-up policy): read from the API server, as the managed CronJobs' cache does not hold it.
   * One no selection holds any more, or deleted, runs no more of them.
   */
  private async watchedTargetOf(job: Job): Promise<Target> {
    const cronJob = job.cronJob!;
    const allowed = cronJob.allowBackfill || (job.catchUp !== null && job.catchUp.policy !== 'none');
    if (cronJob.watchedBy === null || !allowed) return 'gone';
    try {
      return {
        cronJob: await this.deps.cluster.readCronJob(cronJob.namespace, cronJob.name),
        namespace: cronJob.namespace,
      };
    } catch (error) {
      if (statusOf(error) === 404) return 'gone';
      throw error;
    }
  }

  /**
   * The Kubernetes Jobs of a job's runs: a ScheduledJob's carry its id as a label; a watched
   * CronJob's carry nothing of Crondeck's, and are known by their owner, the CronJob.
   */
  private async runsOf(jobId: number, target: { cronJob: V1CronJob; namespace: string }): Promise<V1Job[]> {
    const watched = target.cronJob.metadata?.labels?.[LABEL_JOB_ID] === undefined;
    const { items } = await this.deps.cluster.listJobs(
      target.namespace,
      watched ? '' : `${LABEL_JOB_ID}=${jobId}`,
    );
    if (!watched) return items;
    const uid = target.cronJob.metadata?.uid;
    return items.filter((kubeJob) => kubeJob.metadata?.ownerReferences?.some((owner) => owner.uid === uid));
  }

  /** Creates a run's Job; one that exists already (made before a restart) is that run. Started: true. */
  private async create(namespace: string, kubeJob: V1Job): Promise<boolean> {
    try {
      await this.deps.cluster.createJob(namespace, kubeJob);
      this.deps.logger.info('started the run of a slot', {
        kubernetesJob: `${namespace}/${kubeJob.metadata?.name}`,
        trigger: kubeJob.metadata?.annotations?.[TRIGGER_ANNOTATION],
      });
    } catch (error) {
      if (statusOf(error) !== 409) throw error;
    }
    return true;
  }
}
