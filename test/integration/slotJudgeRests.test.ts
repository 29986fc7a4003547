import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../src/logging/logger';
import { SlotJudge, type SlotJudgeOptions } from '../../src/scheduling/slotJudge';
import type { Database } from '../../src/store/database';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import { startTestService, type TestService } from '../support/service';

const quiet = createLogger({ level: 'error' });

/**
 * The judge is background work with a minute of grace: between the batches of a pass it rests, so
 * that the recordings and requests arriving meanwhile keep the process and the database half of
 * the pass at the default ratio (bench: `npm run bench -- slots`, the recording rate during the passes).
 */
describe('the slot judge’s rests between batches', () => {
  let db: Database;
  let clock: ManualClock;
  let service: TestService;

  beforeEach(async () => {
    db = await createTestDatabase();
    clock = new ManualClock('2026-06-01T10:00:30Z');
    service = await startTestService({ db, clock });
    for (let k = 0; k < 5; k++) {
      const created = await service.request('POST', '/api/jobs', {
        name: `rested-${k}`,
        schedule: '*/10 * * * *',
        command: 'true',
      });
      expect(created.status).toBe(201);
    }
    clock.set('2026-06-01T11:00:00Z');
  });
  afterEach(async () => {
    await service.stop();
    await db.close();
  });

  /** A judge of batches of two jobs, each batch taking at least 40 ms, whose rests are noted. */
  function judgeNotingRests(options: Partial<SlotJudgeOptions>) {
    const rests: { ms: number; sinceLastRestMs: number }[] = [];
    let mark = performance.now();
    const judge = new SlotJudge({
      pool: db.pool,
      clock,
      logger: quiet,
      defaultTimeZone: 'UTC',
      runtime: 'local',
      batchSize: 2,
      onJudged: async () => {
        await sleep(40);
        return undefined;
      },
      rest: async (ms) => {
        rests.push({ ms, sinceLastRestMs: performance.now() - mark });
        mark = performance.now();
      },
      ...options,
    });
    return { judge, rests };
  }

  it('rests after each batch that leaves more to do, for the batch’s time times the ratio, and not after the last', async () => {
    const { judge, rests } = judgeNotingRests({ restRatio: 2 });
    // Five jobs, five slots each: batches of 2, 2 and 1 job.
    expect(await judge.judge()).toBe(25);
    expect(rests).toHaveLength(2);
    for (const { ms, sinceLastRestMs } of rests) {
      expect(ms).toBeGreaterThanOrEqual(2 * 40);
      expect(ms).toBeLessThanOrEqual(2 * sinceLastRestMs + 1);
    }
  });

  it('does not rest at a ratio of 0, nor in a pass of one batch', async () => {
    const unrested = judgeNotingRests({ restRatio: 0 });
    expect(await unrested.judge.judge()).toBe(25);
    expect(unrested.rests).toEqual([]);

    clock.set('2026-06-01T11:10:00Z');
    const oneBatch = judgeNotingRests({ batchSize: 10 });
    expect(await oneBatch.judge.judge()).toBe(5);
    expect(oneBatch.rests).toEqual([]);
  });
});
