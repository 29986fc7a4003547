import type { Pool, PoolClient } from 'pg';
import { JobLists } from '../caching/jobLists';
import { JobRenders } from '../caching/jobRenders';
import type { ReadFreshness } from '../caching/versionedRenders';
import type { Caller } from '../domain/caller';
import type { Clock } from '../domain/clock';
import type { RunningAttempt } from '../domain/execution';
import { conflict, invalid, notFound } from '../domain/errors';
import { effectiveTimeZone, type Job, type JobInput } from '../domain/job';
import type { LastSlot } from '../domain/slots';
import { type JobResource, placeJob } from '../kube/placement';
import type { Runtime } from '../runtime/runtime';
import { restartSuspensionCount } from '../store/alerts';
import { refuseWriteOfWatched } from './watchedJobWrites';
import { WatchedJobUseCases } from './watchedJobUseCases';
import { isUniqueViolation, withTransaction } from '../store/database';
import * as jobs from '../store/jobs';
import type { ListChanges } from '../store/listChangeFeed';
import { findRunningAttempt } from '../store/runningAttempts';
import { findLastSlot, saveJobInLedger, saveJobsInLedger } from '../store/slots';
import { eachAlone, GroupCommit } from './groupCommit';
import { NextRunCache } from './nextRunCache';
import { firstDueAt, newPassCache } from './slotPlan';

/**
 * A job as the API shows it: the stored job plus when it fires next, its run in progress and its
 * last judged slot.
 */
export interface JobView extends Job {
  nextRun: Date | null;
  running: RunningAttempt | null;
  lastSlot: LastSlot | null;
}

/**
 * A creation as the batch takes it: the input (its name as the job will be named), the
 * ScheduledJob it goes to in Kubernetes mode, and who asked (SERVICE_AUTH=kubernetes).
 */
interface Creation {
  input: JobInput;
  resource: JobResource | null;
  by: Caller | null;
}

/**
 * Creating, changing, deleting and running jobs, shared by the HTTP API and the config file. A
 * change made for a caller (`by`, SERVICE_AUTH=kubernetes) reaches the runtime with them (it
 * writes the cluster as them) and names them in the job's `changedBy`.
 */
export class JobService {
  private readonly nextRuns = new NextRunCache();
  private readonly lists: JobLists<JobView>;
  private readonly renders: JobRenders<JobView>;
  /**
   * Creations come over HTTP: their clients cannot send again before the next batch is taken, so
   * it is sent before the last one's are answered (groupCommit.ts).
   */
  private readonly creations = new GroupCommit<Creation, Job>((inputs) => this.createBatch(inputs), {
    nextBatch: 'beforeAnswers',
  });

  /** Run now and the toggle of watched CronJobs' jobs, which go to their CronJobs (issue 40). */
  private readonly watchedCronJobs: WatchedJobUseCases;

  constructor(
    private readonly pool: Pool,
    private readonly runtime: Runtime,
    private readonly clock: Clock,
    private readonly defaultTimeZone: string,
    /** The server's notifications of list changes, when the service listens for them. */
    changes: ListChanges | null = null,
    /**
     * Kubernetes mode: the namespace the REST API writes ScheduledJobs to unless a job names
     * another (`namespace`); null in local mode, where jobs have none.
     */
    private readonly kubernetesHome: string | null = null,
  ) {
    this.watchedCronJobs = new WatchedJobUseCases(pool, runtime, clock);
    this.lists = new JobLists(pool, clock, (now) => this.readViews(now), changes);
    this.renders = new JobRenders(pool, clock, (id, now) => this.readView(id, now), changes);
  }

  async list(): Promise<JobView[]> {
    return (await this.readViews(this.clock.now())).views;
  }

  /**
   * One page of the list by id (`GET /api/jobs?after=&limit=`): the jobs after id `after`, at most
   * `limit`, read for the caller and never kept, so that a page costs its jobs, not the list.
   */
  async listPage(page: { after: number; limit: number }): Promise<JobView[]> {
    return (await this.readViews(this.clock.now(), page)).views;
  }

  /** The job list rendered by `render`, reused while it is what a fresh read would render (caching/jobLists.ts). */
  listRendered<T>(render: (jobs: JobView[]) => T, freshness: ReadFreshness = 'current'): Promise<T> {
    return this.lists.get(render, freshness);
  }

  async get(id: number): Promise<JobView> {
    return (await this.readView(id, this.clock.now())).view;
  }

  /** One job rendered by `render`, reused while it is what a fresh read would render (caching/jobRenders.ts). */
  getRendered<T>(id: number, render: (job: JobView) => T, freshness: ReadFreshness = 'current'): Promise<T> {
    return this.renders.get(id, render, freshness);
  }

  /**
   * Job `id` as `getRendered` last rendered it, when a `recent` read may answer that at once, with
   * no database round trip; undefined otherwise (then ask `getRendered`).
   */
  recentRendering<T>(id: number): T | undefined {
    return this.renders.recent<T>(id);
  }

  async create(input: JobInput, by: Caller | null = null): Promise<JobView> {
    const creation = { ...this.place(input), by };
    const job = await this.translateConflict(creation.input.name, () => this.creations.submit(creation));
    return this.view(job, this.clock.now(), null, null);
  }

  /**
   * Where a new job goes: in Kubernetes mode, its namespace's ScheduledJob, under the name the
   * controller gives it (`namespace.name` outside the service's namespace, kube/placement.ts).
   */
  private place(input: JobInput): { input: JobInput; resource: JobResource | null } {
    const home = this.kubernetesHome;
    if (home === null) {
      if (input.namespace != null) throw noNamespaces();
      return { input, resource: null };
    }
    const namespace = input.namespace ?? home;
    const placed = placeJob(input.name, namespace, home);
    if (placed.name.length > MAX_PLACED_NAME) {
      throw invalid(
        `name: must be at most ${MAX_PLACED_NAME} characters with its namespace (${namespace}.), ` +
          `the name the job has outside the service's namespace`,
      );
    }
    return { input: { ...input, name: placed.name }, resource: placed.resource };
  }

  /**
   * Creations made together share one statement (group commit, as the recorder's): one INSERT,
   * one commit and its WAL flush, where each would pay its own. A name taken answers a conflict to
   * its creation alone. When the batch fails whole (the runtime refused one job, the database
   * refused one row), each creation is tried alone, so that only the one at fault fails.
   */
  private async createBatch(creations: Creation[]): Promise<PromiseSettledResult<Job>[]> {
    try {
      const created = await this.createAndTell(creations);
      // The first creation of a name gets its job; a later one in the batch met a name taken.
      return creations.map(({ input }): PromiseSettledResult<Job> => {
        const job = created.get(input.name);
        if (!job) return { status: 'rejected', reason: nameTaken(input.name) };
        created.delete(input.name);
        return { status: 'fulfilled', value: job };
      });
    } catch (error) {
      if (creations.length === 1) return [{ status: 'rejected', reason: error }];
      return eachAlone(creations, async (creation) => {
        const job = (await this.createAndTell([creation])).get(creation.input.name);
        if (!job) throw nameTaken(creation.input.name);
        return job;
      });
    }
  }

  /**
   * Creates jobs with their slot ledger and tells the runtime of each. A runtime that keeps its
   * schedule in memory is told once they have committed, and the creation is one statement without
   * a transaction: one round trip to the database instead of four. One that writes elsewhere (the
   * cluster's resources) is told inside the transaction, so that its refusal rolls the jobs back.
   */
  private async createAndTell(given: readonly Creation[]): Promise<Map<string, Job>> {
    const at = this.clock.now();
    const plans = newPassCache();
    const creations = given.map(({ input, resource, by }) => ({
      input,
      firstDueAt: firstDueAt(input, at, this.defaultTimeZone, plans),
      resource,
      changedBy: by?.username ?? null,
    }));
    // Each job is told with whoever asked for it: a batch may hold several callers' creations.
    const askedBy = new Map(given.map(({ input, by }) => [input.name, by]));
    const createAndTellOn = async (db: Pool | PoolClient) => {
      const created = await jobs.createJobs(db, creations, at);
      for (const [name, { job, rowVersion }] of created) {
        await this.runtime.jobSaved(job, rowVersion, { by: askedBy.get(name) ?? null, created: true });
      }
      return new Map([...created].map(([name, { job }]) => [name, job]));
    };
    return this.runtime.savesInMemory ? createAndTellOn(this.pool) : this.writeAndTell(createAndTellOn);
  }

  async replace(id: number, input: JobInput, by: Caller | null = null): Promise<JobView> {
    const job = await this.translateConflict(input.name, () =>
      this.writeAndTell(async (tx) => {
        refuseWriteOfWatched(await jobs.findJob(tx, id), 'change');
        if (input.namespace != null) await this.requireSameNamespace(tx, id, input.namespace);
        const updated = await jobs.updateJob(tx, id, input, by?.username ?? null);
        if (!updated) throw notFound(`job ${id} not found`);
        await saveJobInLedger(tx, updated, this.clock.now());
        await this.runtime.jobSaved(updated, undefined, { by });
        return updated;
      }),
    );
    return this.viewWithRun(job);
  }

  /** A job stays in its namespace: a replacement may name it (sent back as read), not another. */
  private async requireSameNamespace(tx: PoolClient, id: number, namespace: string): Promise<void> {
    if (this.kubernetesHome === null) throw noNamespaces();
    const current = await jobs.findJob(tx, id);
    if (!current) throw notFound(`job ${id} not found`);
    const itsNamespace = current.namespace ?? this.kubernetesHome;
    if (itsNamespace !== namespace) {
      throw invalid(`namespace: a job cannot move to another namespace (job ${id} is in ${itsNamespace})`);
    }
  }

  async remove(id: number, by: Caller | null = null): Promise<void> {
    await this.writeAndTell(async (tx) => {
      refuseWriteOfWatched(await jobs.findJob(tx, id), 'delete');
      if (!(await jobs.deleteJob(tx, id))) throw notFound(`job ${id} not found`);
      await this.runtime.jobDeleted(id, by);
    });
  }

  /**
   * The toggle. Switching a job on also ends a suspension by its alert policy (and its failures
   * count toward the next one from zero); switching it off ends it too, the person's choice
   * replacing the policy's.
   */
  async setEnabled(id: number, enabled: boolean, by: Caller | null = null): Promise<JobView> {
    const watched = await this.watchedCronJobs.setEnabled(id, enabled, by);
    if (watched) return this.viewWithRun(watched);
    let wasSuspended = false;
    const job = await this.writeAndTell(async (tx) => {
      const current = await jobs.findJob(tx, id);
      wasSuspended = current?.suspendedReason != null;
      const updated = await jobs.setJobEnabled(tx, id, enabled, by?.username ?? null);
      if (!updated) throw notFound(`job ${id} not found`);
      if (wasSuspended) await restartSuspensionCount(tx, id);
      await saveJobInLedger(tx, updated, this.clock.now());
      await this.runtime.jobSaved(updated, undefined, { by });
      return updated;
    });
    // After the commit: what the runtime does next (a controller reconciling the CronJob) reads it.
    if (wasSuspended) await this.runtime.suspensionChanged(job);
    return this.viewWithRun(job);
  }

  /**
   * Starts a run now. A disabled job can be run by hand too: disabling only stops the schedule.
   * One run of a job at a time, as for fire times (a fire time during a run is `skipped`): a
   * second run while one is going (retries and their waits included) is refused, not started.
   * Running a job that its alert policy suspended resumes it: a person is looking at it.
   */
  async runNow(id: number, by: Caller | null = null): Promise<Job> {
    const watched = await this.watchedCronJobs.runNow(id, by);
    if (watched) return watched;
    const resumed = await withTransaction(this.pool, async (tx) => {
      const job = await jobs.resumeSuspendedJob(tx, id);
      if (job) await restartSuspensionCount(tx, id);
      if (job) await saveJobInLedger(tx, job, this.clock.now());
      return job;
    });
    const job = resumed ?? (await this.require(id));
    if (resumed) await this.runtime.suspensionChanged(resumed);
    await this.runtime.runNow(job, by);
    return job;
  }

  /**
   * Tells the runtime of jobs that their alert policy suspended (already committed), so that they
   * fire no more; each is told even when another could not be.
   */
  async suspensionsTaken(jobIds: readonly number[]): Promise<void> {
    const failures: unknown[] = [];
    for (const job of (await jobs.findJobs(this.pool, [...jobIds])).values()) {
      try {
        await this.runtime.suspensionChanged(job);
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw new AggregateError(failures, 'the runtime could not suspend every job');
  }

  /**
   * Applies the jobs of a config file all at once: every one is created or replaced by name, in
   * one transaction, so a restart with the same file creates no duplicates and a failure leaves
   * the previous set untouched.
   */
  async applyDeclared(inputs: JobInput[]): Promise<{ created: number; updated: number }> {
    const placed = inputs.find((input) => input.namespace != null);
    if (placed) {
      throw invalid(
        `job "${placed.name}": namespace: a config file's jobs go to the service's namespace; ` +
          'create a job elsewhere through the API or as a ScheduledJob',
      );
    }
    const results = await this.writeAndTell(async (tx) => {
      const saved: { job: Job; created: boolean }[] = [];
      for (const input of inputs) saved.push(await jobs.upsertJobByName(tx, input));
      await saveJobsInLedger(
        tx,
        saved.map(({ job }) => job),
        this.clock.now(),
      );
      for (const { job } of saved) await this.runtime.jobSaved(job);
      return saved;
    });
    const created = results.filter((r) => r.created).length;
    return { created, updated: results.length - created };
  }

  nextRunOf(job: Job, now: Date): Date | null {
    if (!job.enabled) return null;
    return this.nextRuns.nextAfter(job.schedule, effectiveTimeZone(job, this.defaultTimeZone), now);
  }

  /** Every job as the API shows it at `now`, and the list's version (a run starting or ending bumps it too). */
  private async readViews(
    now: Date,
    page: { after: number; limit: number } | null = null,
  ): Promise<{ views: JobView[]; version: string }> {
    const { jobs: rows, running, lastSlots, version } = await jobs.listJobsWithVersion(this.pool, page);
    return {
      views: rows.map((job) =>
        this.view(job, now, running.get(job.id) ?? null, lastSlots.get(job.id) ?? null),
      ),
      version,
    };
  }

  /** One job as the API shows it at `now`, and the job list's version read with it. */
  private async readView(id: number, now: Date): Promise<{ view: JobView; version: string }> {
    const { found, version } = await jobs.findJobWithRun(this.pool, id);
    if (!found) throw notFound(`job ${id} not found`);
    return { view: this.view(found.job, now, found.running, found.lastSlot), version };
  }

  private view(job: Job, now: Date, running: RunningAttempt | null, lastSlot: LastSlot | null): JobView {
    return { ...job, nextRun: this.nextRunOf(job, now), running, lastSlot };
  }

  private async viewWithRun(job: Job): Promise<JobView> {
    const [running, lastSlot] = await Promise.all([
      findRunningAttempt(this.pool, job.id),
      findLastSlot(this.pool, job.id),
    ]);
    return this.view(job, this.clock.now(), running, lastSlot);
  }

  private async require(id: number): Promise<Job> {
    const job = await jobs.findJob(this.pool, id);
    if (!job) throw notFound(`job ${id} not found`);
    return job;
  }

  /**
   * A write and the runtime's hearing of it, in one transaction: when the runtime refuses (a
   * cluster that cannot be reached), the write is rolled back and the refusal reaches the caller.
   * The runtime must not use the pool meanwhile (the embedded database has one connection).
   */
  private writeAndTell<T>(work: (tx: PoolClient) => Promise<T>): Promise<T> {
    return withTransaction(this.pool, work);
  }

  private async translateConflict<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      // For jobs, only the name is unique.
      if (isUniqueViolation(error)) throw nameTaken(name);
      throw error;
    }
  }
}

function nameTaken(name: string): Error {
  return conflict(`a job named "${name}" already exists`);
}

/** The longest job name (domain/job.ts), which a name qualified by its namespace must keep to. */
const MAX_PLACED_NAME = 200;

function noNamespaces(): Error {
  return invalid('namespace: jobs have a namespace in Kubernetes mode only (SERVICE_RUNTIME=kubernetes)');
}
