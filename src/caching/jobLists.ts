import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import type { ListChanges } from '../store/listChangeFeed';
import { nextRunWindow } from './nextRunWindow';
import { type ReadFreshness, VersionedRenders } from './versionedRenders';

/**
 * The job list as a renderer writes it (the HTTP layer serialises it, a job list being hundreds of
 * kilobytes), reused only while it is exactly what a fresh read would render: the list's version
 * is unchanged (writes by any replica or process count), and no job's next run has come since.
 */
export class JobLists<View extends { nextRun: Date | null }> {
  private readonly renders: VersionedRenders<unknown>;

  constructor(
    pool: Pool,
    private readonly clock: Clock,
    /** The jobs as the API shows them at `now`, and the version of what it read. */
    private readonly read: (now: Date) => Promise<{ views: View[]; version: string }>,
    changes: ListChanges | null,
  ) {
    this.renders = new VersionedRenders({ list: 'jobs', pool, changes, maxKeys: 1 });
  }

  /** `render` must be a pure function, the same on every call. */
  async get<T>(render: (views: View[]) => T, freshness: ReadFreshness = 'current'): Promise<T> {
    const value = await this.renders.get(
      'jobs',
      async () => {
        const readAt = this.clock.now().getTime();
        const { views, version } = await this.read(new Date(readAt));
        const window = nextRunWindow(
          readAt,
          views.map((view) => view.nextRun),
        );
        return { value: render(views), version, ...window };
      },
      this.clock.now().getTime(),
      freshness,
    );
    return value as T;
  }
}
