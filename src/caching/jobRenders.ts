import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import type { ListChanges } from '../store/listChangeFeed';
import { nextRunWindow } from './nextRunWindow';
import { type ReadFreshness, VersionedRenders } from './versionedRenders';

/** Jobs whose rendering is kept; past this, the one rendered longest ago is dropped. */
const MAX_JOBS_KEPT = 1_024;

/**
 * One job as a renderer writes it (`GET /api/jobs/:id`), reused only while it is exactly what a
 * fresh read would render. Everything a job's answer shows (its row, its attempt in progress, its
 * next run) is shown by the job list too, so the job list's version (listVersions.ts, bumped by
 * triggers in the writing transaction, whichever replica or process wrote) changes whenever the
 * answer could; its next run changes with the clock alone, so an answer is kept only until then.
 *
 * A request whose job is rendered costs, instead of the job's query and its serialisation, at most
 * one round trip shared with the requests that arrive meanwhile (for any job), and none for a
 * `recent` read while the change feed caught up a moment ago (VersionedRenders).
 */
export class JobRenders<View extends { nextRun: Date | null }> {
  private readonly renders: VersionedRenders<unknown>;

  constructor(
    pool: Pool,
    private readonly clock: Clock,
    /**
     * The job as the API shows it at `now`, and the version of the job list read in the same
     * statement (so the two are of one snapshot). Rejects when there is no such job.
     */
    private readonly read: (id: number, now: Date) => Promise<{ view: View; version: string }>,
    changes: ListChanges | null,
  ) {
    this.renders = new VersionedRenders({ list: 'jobs', pool, changes, maxKeys: MAX_JOBS_KEPT });
  }

  /** The kept rendering of job `id` when a `recent` read may answer it at once (VersionedRenders.recent). */
  recent<T>(id: number): T | undefined {
    return this.renders.recent(String(id), this.clock.now().getTime())?.value as T | undefined;
  }

  /** `render` must be a pure function, the same on every call. */
  async get<T>(id: number, render: (view: View) => T, freshness: ReadFreshness = 'current'): Promise<T> {
    const value = await this.renders.get(
      String(id),
      async () => {
        const readAt = this.clock.now().getTime();
        const { view, version } = await this.read(id, new Date(readAt));
        return { value: render(view), version, ...nextRunWindow(readAt, [view.nextRun]) };
      },
      this.clock.now().getTime(),
      freshness,
    );
    return value as T;
  }
}
