import type { Pool } from 'pg';
import { type Rendered, VersionedRenders } from '../../src/caching/versionedRenders';
import type { ListChanges } from '../../src/store/listChangeFeed';
import type { VersionedList } from '../../src/store/listVersions';

/** A list's version as a pool answers it, counting the reads. */
class FakeVersions {
  version = 1;
  reads = 0;
  readonly pool = {
    query: async () => {
      this.reads += 1;
      return { rows: [{ version: String(this.version) }] };
    },
  } as unknown as Pool;
}

/** Notifications as a test plays them: `change()` is a change seen, `caughtUp` what catch-ups answer. */
class FakeChanges implements ListChanges {
  private count = 0;
  caughtUpAnswer = true;
  catchUps = 0;
  seen(_list: VersionedList): number {
    return this.count;
  }
  change(): void {
    this.count += 1;
  }
  async caughtUp(): Promise<boolean> {
    this.catchUps += 1;
    return this.caughtUpAnswer;
  }
  /** What `caughtUpRecently()` answers: by default never, so that every read proves itself. */
  recently = false;
  recentAsks = 0;
  caughtUpRecently(): boolean {
    this.recentAsks += 1;
    return this.recently;
  }
}

describe('VersionedRenders', () => {
  let versions: FakeVersions;
  let changes: FakeChanges;
  let renders: number;
  /** Renders the list as of its version, as a statement reading both would. */
  const render = async (): Promise<Rendered<string>> => {
    renders += 1;
    return { value: `rendered at ${versions.version}`, version: String(versions.version) };
  };

  beforeEach(() => {
    versions = new FakeVersions();
    changes = new FakeChanges();
    renders = 0;
  });

  const kept = (withChanges: ListChanges | null = changes) =>
    new VersionedRenders<string>({ list: 'jobs', pool: versions.pool, changes: withChanges });

  test('answers what it kept without reading the version while no change is seen', async () => {
    const cache = kept();
    expect(await cache.get('k', render)).toBe('rendered at 1');
    expect(await cache.get('k', render)).toBe('rendered at 1');
    expect(await cache.get('k', render)).toBe('rendered at 1');
    expect(renders).toBe(1);
    expect(versions.reads).toBe(0);
    expect(changes.catchUps).toBe(2);
  });

  test('reads the version once a change is seen, and keeps the rendering when it is the same', async () => {
    const cache = kept();
    await cache.get('k', render);
    changes.change();
    expect(await cache.get('k', render)).toBe('rendered at 1');
    expect(versions.reads).toBe(1);
    // The version read proved it current up to what had been seen: no read the next time.
    expect(await cache.get('k', render)).toBe('rendered at 1');
    expect(versions.reads).toBe(1);
    expect(renders).toBe(1);
  });

  test('renders again when the list changed', async () => {
    const cache = kept();
    await cache.get('k', render);
    versions.version = 2;
    changes.change();
    expect(await cache.get('k', render)).toBe('rendered at 2');
    expect(renders).toBe(2);
  });

  test('reads the version whenever the feed cannot say (not listening), or there is none', async () => {
    changes.caughtUpAnswer = false;
    for (const cache of [kept(), kept(null)]) {
      const readsBefore = versions.reads;
      await cache.get('k', render);
      await cache.get('k', render);
      await cache.get('k', render);
      expect(versions.reads - readsBefore).toBe(2);
    }
  });

  test('a change seen while the rendering was being read is not taken as seen before it', async () => {
    const cache = kept();
    // The change comes while the read is under way: its snapshot may or may not hold it.
    await cache.get('k', async () => {
      const rendered = await render();
      changes.change();
      return rendered;
    });
    versions.version = 2;
    expect(await cache.get('k', render)).toBe('rendered at 2');
  });

  test('a kept rendering is answered only within the time it holds', async () => {
    const cache = kept();
    const timed = async (): Promise<Rendered<string>> => ({ ...(await render()), validUntil: 1_000 });
    await cache.get('k', timed, 0);
    expect(await cache.get('k', timed, 999)).toBe('rendered at 1');
    expect(renders).toBe(1);
    await cache.get('k', timed, 1_000);
    expect(renders).toBe(2);
  });

  describe('a recent read', () => {
    test('answers what it kept with no catch-up and no version read while the feed was caught up recently', async () => {
      const cache = kept();
      await cache.get('k', render);
      changes.recently = true;
      const catchUps = changes.catchUps;
      expect(await cache.get('k', render, 0, 'recent')).toBe('rendered at 1');
      expect(cache.recent('k')?.value).toBe('rendered at 1');
      expect(changes.catchUps).toBe(catchUps);
      expect(versions.reads).toBe(0);
      // A current read of the same rendering still proves it.
      await cache.get('k', render, 0, 'current');
      expect(changes.catchUps).toBe(catchUps + 1);
    });

    test('proves it as a current read does when the feed was not caught up recently', async () => {
      const cache = kept();
      await cache.get('k', render);
      const catchUps = changes.catchUps;
      expect(cache.recent('k')).toBeUndefined();
      expect(await cache.get('k', render, 0, 'recent')).toBe('rendered at 1');
      expect(changes.catchUps).toBe(catchUps + 1);
    });

    test('renders again once a change is seen, without asking the feed', async () => {
      const cache = kept();
      await cache.get('k', render);
      changes.recently = true;
      changes.change();
      versions.version = 2;
      const asks = changes.recentAsks;
      expect(cache.recent('k')).toBeUndefined();
      expect(changes.recentAsks).toBe(asks);
      expect(await cache.get('k', render, 0, 'recent')).toBe('rendered at 2');
    });

    test('is never answered from what was kept outside the time it holds, or without a feed', async () => {
      const timed = async (): Promise<Rendered<string>> => ({ ...(await render()), validUntil: 1_000 });
      const cache = kept();
      await cache.get('k', timed, 0);
      changes.recently = true;
      expect(cache.recent('k', 999)?.value).toBe('rendered at 1');
      expect(cache.recent('k', 1_000)).toBeUndefined();
      const unfed = kept(null);
      await unfed.get('k', render);
      expect(unfed.recent('k')).toBeUndefined();
    });
  });
});
