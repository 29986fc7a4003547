import type { Pool } from 'pg';
import { cachedDatabaseSize } from '../../src/caching/databaseSize';
import { ManualClock } from '../support/clock';

/** A pool that answers the size query with `sizes` in turn, counting the queries. */
function sizePool(answers: Array<number | Error>) {
  const pool = {
    queries: 0,
    async query() {
      const answer = answers[pool.queries++]!;
      if (answer instanceof Error) throw answer;
      return { rows: [{ size: String(answer) }] };
    },
  };
  return pool;
}

describe('cachedDatabaseSize', () => {
  it('asks the database at most once per period, callers in the meantime sharing the answer', async () => {
    const clock = new ManualClock('2026-11-25T10:00:00Z');
    const pool = sizePool([100, 200]);
    const size = cachedDatabaseSize(pool as unknown as Pool, clock, 10_000);
    expect(await Promise.all([size(), size(), size()])).toEqual([100, 100, 100]);
    clock.advance(9_999);
    expect(await size()).toBe(100);
    expect(pool.queries).toBe(1);
    clock.advance(1);
    expect(await size()).toBe(200);
    expect(pool.queries).toBe(2);
  });

  it('keeps no failure: the next caller asks again', async () => {
    const clock = new ManualClock('2026-11-25T10:00:00Z');
    const pool = sizePool([new Error('connection refused'), 300]);
    const size = cachedDatabaseSize(pool as unknown as Pool, clock);
    await expect(size()).rejects.toThrow('connection refused');
    expect(await size()).toBe(300);
  });
});
