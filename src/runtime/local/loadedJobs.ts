import type { StoredJob } from '../../store/jobs';
import type { LocalRuntimeStore } from './localRuntimeStore';

/** What one reload found in the jobs table. */
export interface JobChanges {
  /** The jobs whose rows moved since they were last loaded, new ones included, each at its version. */
  changed: StoredJob[];
  /**
   * Every job's row version, when the reload had to read them all because jobs were deleted behind
   * this process's back: a job known here and not in it is gone. Null otherwise.
   */
  everyVersion: Map<number, string> | null;
  /** Where the next reload looks for written jobs from. */
  horizon: string;
}

type JobReads = Pick<LocalRuntimeStore, 'loadJobsWrittenSince' | 'loadJobRowVersions' | 'loadJobs'>;

/**
 * The row version (store/jobs.ts) of each job a leader has loaded, disabled ones included, so that
 * a reload reads only the jobs whose rows moved since.
 *
 * A reload reads, in one pass over the table, the versions of the jobs written by transactions not
 * older than the oldest one still running at the last reload, with the number of jobs: after many
 * creations through this process (each told with its version, `saved`), none of them, and no work
 * for the jobs not written. Only when there are fewer jobs than it knows of and found written (a
 * deletion behind its back) does it read every job's version, to tell which.
 */
export class LoadedJobs {
  private readonly loaded = new Map<number, string>();
  /**
   * Versions told by saves since the last reload began: taken into `loaded` when the next one
   * begins, so that a reload compares the jobs' count with the jobs saved before its read, all of
   * which that read counts.
   */
  private readonly told = new Map<number, string>();
  /** Null until `loaded` holds every job. */
  private horizon: string | null = null;

  constructor(private readonly store: JobReads) {}

  /** A save through this process wrote the job's row at `rowVersion`. */
  saved(jobId: number, rowVersion: string): void {
    this.told.set(jobId, rowVersion);
  }

  deleted(jobId: number): void {
    this.loaded.delete(jobId);
    this.told.delete(jobId);
  }

  /** Forgets everything: the next reload reads every job (a new leadership). */
  clear(): void {
    this.loaded.clear();
    this.told.clear();
    this.horizon = null;
  }

  /**
   * Takes in the versions that saves told, then reads what changed since the last reload; what it
   * reads is taken in by `apply`, so that a reload abandoned halfway (leadership lost) leaves no trace.
   */
  async read(): Promise<JobChanges> {
    for (const [id, version] of this.told) this.loaded.set(id, version);
    this.told.clear();
    const written = await this.store.loadJobsWrittenSince(this.horizon);
    let unknown = 0;
    for (const id of written.versions.keys()) if (!this.loaded.has(id)) unknown++;
    const everyVersion =
      this.loaded.size + unknown === written.count ? null : await this.store.loadJobRowVersions();
    const candidates = everyVersion ?? written.versions;
    const ids = [...candidates].filter(([id, version]) => this.loaded.get(id) !== version).map(([id]) => id);
    return { changed: await this.store.loadJobs(ids), everyVersion, horizon: written.horizon };
  }

  /** Takes in what `read` found, once the runtime has scheduled it. */
  apply(changes: JobChanges): void {
    for (const { job, rowVersion } of changes.changed) this.loaded.set(job.id, rowVersion);
    if (changes.everyVersion) {
      for (const id of [...this.loaded.keys()]) if (!changes.everyVersion.has(id)) this.loaded.delete(id);
    }
    this.horizon = changes.horizon;
  }
}
