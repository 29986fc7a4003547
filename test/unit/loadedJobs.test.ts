import type { Job } from '../../src/domain/job';
import { LoadedJobs } from '../../src/runtime/local/loadedJobs';

/**
 * A jobs table as the reload reads it: each row's version, and the horizon each read hands back.
 * Rows written "since" a horizon are those set after the read that returned it.
 */
class FakeTable {
  readonly rows = new Map<number, string>();
  private writtenSince = new Map<number, Set<number>>();
  private reads = 0;
  readonly horizonsAsked: (string | null)[] = [];
  readonly jobsRead: number[][] = [];
  everyVersionReads = 0;

  write(id: number, version: string): void {
    this.rows.set(id, version);
    for (const written of this.writtenSince.values()) written.add(id);
  }

  delete(id: number): void {
    this.rows.delete(id);
  }

  readonly store = {
    loadJobsWrittenSince: async (horizon: string | null) => {
      this.horizonsAsked.push(horizon);
      const since = horizon === null ? null : this.writtenSince.get(Number(horizon))!;
      const versions = new Map([...this.rows].filter(([id]) => since === null || since.has(id)));
      const next = ++this.reads;
      this.writtenSince.set(next, new Set());
      return { versions, count: this.rows.size, horizon: String(next) };
    },
    loadJobRowVersions: async () => {
      this.everyVersionReads++;
      return new Map(this.rows);
    },
    loadJobs: async (ids: number[]) => {
      this.jobsRead.push(ids);
      return ids
        .filter((id) => this.rows.has(id))
        .map((id) => ({ job: { id } as Job, rowVersion: this.rows.get(id)! }));
    },
  };
}

async function reload(loaded: LoadedJobs) {
  const changes = await loaded.read();
  loaded.apply(changes);
  return changes;
}

describe('LoadedJobs (the local runtime reload bookkeeping)', () => {
  it('reads every job first, then from the horizon the last read handed back', async () => {
    const table = new FakeTable();
    table.write(1, 'a');
    table.write(2, 'b');
    const loaded = new LoadedJobs(table.store);

    expect((await reload(loaded)).changed.map(({ job }) => job.id)).toEqual([1, 2]);
    table.write(2, 'c');
    expect((await reload(loaded)).changed.map(({ job }) => job.id)).toEqual([2]);
    expect(await reload(loaded)).toMatchObject({ changed: [], everyVersion: null });

    expect(table.horizonsAsked).toEqual([null, '1', '2']);
    expect(table.everyVersionReads).toBe(0);
  });

  it('does not read a job again whose save told the version of its row', async () => {
    const table = new FakeTable();
    const loaded = new LoadedJobs(table.store);
    await reload(loaded);

    table.write(7, 'x');
    loaded.saved(7, 'x');
    table.write(8, 'y');
    loaded.saved(8, 'stale: the save rolled back');

    expect((await reload(loaded)).changed.map(({ job }) => job.id)).toEqual([8]);
  });

  it('reads every version when jobs were deleted behind its back, and forgets them', async () => {
    const table = new FakeTable();
    table.write(1, 'a');
    table.write(2, 'b');
    const loaded = new LoadedJobs(table.store);
    await reload(loaded);

    table.delete(1);
    const changes = await reload(loaded);
    expect(changes.changed).toEqual([]);
    expect([...changes.everyVersion!.keys()]).toEqual([2]);
    expect(table.everyVersionReads).toBe(1);

    // Job 1 is forgotten: a new job with its id is read as new.
    table.write(1, 'a');
    expect((await reload(loaded)).changed.map(({ job }) => job.id)).toEqual([1]);
    expect(table.everyVersionReads).toBe(1);
  });

  it('starts again from every job after clear (a new leadership)', async () => {
    const table = new FakeTable();
    table.write(1, 'a');
    const loaded = new LoadedJobs(table.store);
    await reload(loaded);

    loaded.clear();
    expect((await reload(loaded)).changed.map(({ job }) => job.id)).toEqual([1]);
    expect(table.horizonsAsked).toEqual([null, null]);
  });
});
