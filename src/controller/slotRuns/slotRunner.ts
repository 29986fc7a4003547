import type { ObjectCache, V1CronJob, V1Job } from '@kubernetes/client-node';
import type { Pool } from 'pg';
import type { Clock } from '../../domain/clock';
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
import { slotOfKubeJob, TRIGGER_ANNOTATION } from '../runs/jobSlot';
import { slotsToCatchUpOnCluster } from './catchUpPlan';
import { BACKFILL_LABEL, slotRunJob } from './slotRunJob';

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
 *   so that a controller taking over goes on where it stood.
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
      const { items } = await this.deps.cluster.listJobs(target.namespace, `${LABEL_JOB_ID}=${jobId}`);
      if (items.some((kubeJob) => !finishedJob(kubeJob))) continue;
      await this.create(
        target.namespace,
        slotRunJob(target.cronJob, { slot: queue[0]!, trigger: 'catchUp' }),
      );
      queue.shift();
      if (queue.length === 0) this.catchUps.delete(jobId);
    }
  }

  /** Starts the next slots of each backfill while fewer than its concurrency of its Jobs are going. */
  private async advanceBackfills(): Promise<void> {
    for (const backfill of await listUnfinishedBackfills(this.deps.pool)) {
      const target = await this.targetOf(backfill.jobId);
      if (target === 'gone') {
        await this.stopBackfill(backfill);
        continue;
      }
      if (target === 'not yet') continue;
      const { items } = await this.deps.cluster.listJobs(
        target.namespace,
        `${BACKFILL_LABEL}=${backfill.id}`,
      );
      let going = items.filter((kubeJob) => !finishedJob(kubeJob)).length;
      let started = backfill.started;
      while (going < backfill.concurrency && started < backfill.slots.length) {
        const run = { slot: backfill.slots[started]!, trigger: 'backfill' as const, backfillId: backfill.id };
        await this.create(target.namespace, slotRunJob(target.cronJob, run));
        started += 1;
        going += 1;
        await markBackfillStarted(this.deps.pool, backfill.id, started);
      }
      if (started >= backfill.slots.length && going === 0) {
        await finishBackfill(this.deps.pool, backfill.id, this.deps.clock.now());
      }
    }
  }

  /** A job switched off or deleted runs no more of its backfill (a switched-off job must not run). */
  private async stopBackfill(backfill: Backfill): Promise<void> {
    this.deps.logger.warn('a backfill stopped: its job was switched off or deleted', {
      backfillId: backfill.id,
      jobId: backfill.jobId,
      notRun: backfill.slots.length - backfill.started,
    });
    await finishBackfill(this.deps.pool, backfill.id, this.deps.clock.now());
  }

  /** The CronJob a job's runs come from; `not yet` while the controller has not made it (or it is not watched). */
  private async targetOf(jobId: number): Promise<Target> {
    const job = await findJob(this.deps.pool, jobId);
    if (!job || !job.enabled) return 'gone';
    const resource = await resourceOfJob(this.deps.pool, jobId);
    if (!resource) return 'not yet';
    const cronJob = this.deps.caches.cronJobs.get(cronJobNameFor(resource.name), resource.namespace);
    return cronJob ? { cronJob, namespace: resource.namespace } : 'not yet';
  }

  /** Creates a run's Job; one that exists already (made before a restart) is that run. */
  private async create(namespace: string, kubeJob: V1Job): Promise<void> {
    try {
      await this.deps.cluster.createJob(namespace, kubeJob);
      this.deps.logger.info('started the run of a slot', {
        kubernetesJob: `${namespace}/${kubeJob.metadata?.name}`,
        trigger: kubeJob.metadata?.annotations?.[TRIGGER_ANNOTATION],
      });
    } catch (error) {
      if (statusOf(error) !== 409) throw error;
    }
  }
}
