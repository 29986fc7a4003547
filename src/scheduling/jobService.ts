import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import { conflict, notFound } from '../domain/errors';
import { effectiveTimeZone, type Job, type JobInput } from '../domain/job';
import type { Runtime } from '../runtime/runtime';
import { isUniqueViolation, withTransaction } from '../store/database';
import { FreshReads } from '../store/freshReads';
import * as jobs from '../store/jobs';
import { NextRunCache } from './nextRunCache';

/** A job as the API shows it: the stored job plus when it fires next. */
export interface JobView extends Job {
  nextRun: Date | null;
}

/** Longest a rendered job list is reused, even when nothing says it changed. */
const RENDERED_LIST_MAX_AGE_MS = 60_000;

interface RenderedList {
  render: (jobs: JobView[]) => unknown;
  value: unknown;
  /** Version of the rows it was rendered from (`readJobListVersion`). */
  version: string;
  /** Clock time it was read at, and the first time a job's next run changes after that. */
  validFrom: number;
  validUntil: number;
}

/** Creating, changing, deleting and running jobs, shared by the HTTP API and the config file. */
export class JobService {
  private readonly nextRuns = new NextRunCache();
  private readonly listVersions = new FreshReads<string>();
  private readonly listRenders = new FreshReads<unknown>();
  private rendered: RenderedList | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly runtime: Runtime,
    private readonly clock: Clock,
    private readonly defaultTimeZone: string,
  ) {}

  async list(): Promise<JobView[]> {
    const now = this.clock.now();
    return (await jobs.listJobs(this.pool)).map((job) => this.view(job, now));
  }

  /**
   * The job list rendered by `render` (the HTTP layer serialises it, a job list being hundreds of
   * kilobytes), reused only while it is exactly what a fresh read would render: the version of the
   * job rows, read from the database on every call, is unchanged (so writes by any replica or
   * process count), and no job's next run has come since. `render` must be a pure function, the
   * same on every call. Concurrent calls share their reads (FreshReads).
   */
  async listRendered<T>(render: (jobs: JobView[]) => T): Promise<T> {
    const now = this.clock.now().getTime();
    const cached = this.rendered;
    if (cached && cached.render === render && now >= cached.validFrom && now < cached.validUntil) {
      const version = await this.listVersions.read('jobs', () => jobs.readJobListVersion(this.pool));
      if (version === cached.version) return cached.value as T;
    }
    const value = await this.listRenders.read('jobs', async () => {
      const readAt = this.clock.now();
      const { jobs: rows, version } = await jobs.listJobsWithVersion(this.pool);
      const views = rows.map((job) => this.view(job, readAt));
      const rendered: RenderedList = {
        render,
        value: render(views),
        version,
        validFrom: readAt.getTime(),
        validUntil: readAt.getTime() + RENDERED_LIST_MAX_AGE_MS,
      };
      for (const view of views) {
        if (view.nextRun) rendered.validUntil = Math.min(rendered.validUntil, view.nextRun.getTime());
      }
      this.rendered = rendered;
      return rendered.value;
    });
    return value as T;
  }

  async get(id: number): Promise<JobView> {
    return this.view(await this.require(id), this.clock.now());
  }

  async create(input: JobInput): Promise<JobView> {
    const job = await this.translateConflict(input.name, () => jobs.insertJob(this.pool, input));
    this.runtime.jobSaved(job);
    return this.view(job, this.clock.now());
  }

  async replace(id: number, input: JobInput): Promise<JobView> {
    const job = await this.translateConflict(input.name, () => jobs.updateJob(this.pool, id, input));
    if (!job) throw notFound(`job ${id} not found`);
    this.runtime.jobSaved(job);
    return this.view(job, this.clock.now());
  }

  async remove(id: number): Promise<void> {
    if (!(await jobs.deleteJob(this.pool, id))) throw notFound(`job ${id} not found`);
    this.runtime.jobDeleted(id);
  }

  async setEnabled(id: number, enabled: boolean): Promise<JobView> {
    const job = await jobs.setJobEnabled(this.pool, id, enabled);
    if (!job) throw notFound(`job ${id} not found`);
    this.runtime.jobSaved(job);
    return this.view(job, this.clock.now());
  }

  /** Starts a run now. A disabled job can be run by hand too: disabling only stops the schedule. */
  async runNow(id: number): Promise<Job> {
    const job = await this.require(id);
    this.runtime.runNow(job);
    return job;
  }

  /**
   * Applies the jobs of a config file all at once: every one is created or replaced by name, in
   * one transaction, so a restart with the same file creates no duplicates and a failure leaves
   * the previous set untouched.
   */
  async applyDeclared(inputs: JobInput[]): Promise<{ created: number; updated: number }> {
    const results = await withTransaction(this.pool, async (tx) => {
      const saved: { job: Job; created: boolean }[] = [];
      for (const input of inputs) saved.push(await jobs.upsertJobByName(tx, input));
      return saved;
    });
    for (const { job } of results) this.runtime.jobSaved(job);
    const created = results.filter((r) => r.created).length;
    return { created, updated: results.length - created };
  }

  nextRunOf(job: Job, now: Date): Date | null {
    if (!job.enabled) return null;
    return this.nextRuns.nextAfter(job.schedule, effectiveTimeZone(job, this.defaultTimeZone), now);
  }

  private view(job: Job, now: Date): JobView {
    return { ...job, nextRun: this.nextRunOf(job, now) };
  }

  private async require(id: number): Promise<Job> {
    const job = await jobs.findJob(this.pool, id);
    if (!job) throw notFound(`job ${id} not found`);
    return job;
  }

  private async translateConflict<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      // For jobs, only the name is unique.
      if (isUniqueViolation(error)) throw conflict(`a job named "${name}" already exists`);
      throw error;
    }
  }
}
