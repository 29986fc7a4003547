import type { Pool } from 'pg';
import { createLogger } from '../../src/logging/logger';
import type { ExecuteAttempt } from '../../src/runner/attemptLoop';
import { inTurns } from '../../src/runtime/local/inTurns';
import { ExecutionRecorder } from '../../src/scheduling/executionRecorder';
import { TurnGate } from '../../src/scheduling/turnGate';
import { ManualClock } from '../support/clock';
import { createTestDatabase } from '../support/database';
import { startTestService, type TestService } from '../support/service';

/**
 * Counts turns of the event loop: a callback of the check phase each turn (setImmediate), so that
 * what happens between two of them happened in one turn.
 */
function turnCounter() {
  let turn = 0;
  let counting = true;
  const count = () => {
    turn++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return {
    now: () => turn,
    stop: () => void (counting = false),
  };
}

/** The most calls of `counts` made in one turn. */
const busiest = (counts: Map<number, number>) => Math.max(0, ...counts.values());

/**
 * Thousands of jobs firing at one minute: their runs' commands start a few at a time, each few in
 * a turn of the event loop of its own, so that the requests arriving meanwhile are answered
 * between them (issue 38). Structural: how many start in one turn, never how long anything took.
 */
describe('many runs at one fire time', () => {
  let service: TestService;
  let turns: ReturnType<typeof turnCounter>;
  const started = new Map<number, number>();

  /** An attempt's command, started at once and ending at once, noting the turn it started in. */
  const execute: ExecuteAttempt = async () => {
    started.set(turns.now(), (started.get(turns.now()) ?? 0) + 1);
    return {
      status: 'success',
      exitCode: 0,
      stdout: '',
      stderr: '',
      startedAt: new Date(),
      finishedAt: new Date(),
    };
  };

  beforeEach(async () => {
    started.clear();
    service = await startTestService({
      clock: new ManualClock('2026-06-01T10:00:30Z'),
      local: { execute, sleep: async () => undefined },
    });
  });
  afterEach(async () => {
    turns?.stop();
    await service.stop();
  });

  it('starts the commands of 300 jobs due at one minute at most 2 a turn of the event loop', async () => {
    const created = await Promise.all(
      Array.from({ length: 300 }, (_, n) =>
        service.request('POST', '/api/jobs', {
          name: `minutely-${n}`,
          schedule: '* * * * *',
          command: 'true',
        }),
      ),
    );
    expect(created.every((response) => response.status === 201)).toBe(true);
    turns = turnCounter();
    // The tick resolves once every run it started has its first attempt running.
    await service.local.tick(new Date('2026-06-01T10:01:00Z'));
    await service.local.idle();
    expect([...started.values()].reduce((sum, n) => sum + n, 0)).toBe(300);
    expect(busiest(started)).toBeLessThanOrEqual(2);
    // Each run recorded, for its slot.
    const stats = (await service.request('GET', '/api/stats')).body;
    expect(stats.recentSuccesses).toBe(300);
  });
});

describe('where many runs’ processes are', () => {
  it('is recorded in a few statements for runs started together, not one each', async () => {
    const db = await createTestDatabase();
    try {
      const statements: string[] = [];
      // The recorder's pool, noting the statements that write process groups.
      const pool = new Proxy(db.pool, {
        get(target, key, receiver) {
          if (key !== 'query') return Reflect.get(target, key, receiver);
          return (config: unknown, ...rest: unknown[]) => {
            const text = typeof config === 'string' ? config : JSON.stringify(config);
            if (/process_group\s*=/.test(text)) statements.push(text);
            return (target.query as (...args: unknown[]) => unknown).call(target, config, ...rest);
          };
        },
      }) as Pool;
      const recorder = new ExecutionRecorder(pool, createLogger({ level: 'error' }));
      const { rows } = await db.pool.query(
        `INSERT INTO jobs (name, schedule, command) VALUES ('grouped', '* * * * *', 'true') RETURNING id`,
      );
      const job = (await db.pool.query('SELECT * FROM jobs WHERE id = $1', [rows[0].id])).rows[0];
      const asJob = { ...job, id: Number(job.id), timezone: null, retry: null, timeout: 0, catchUp: null };
      const ids = await Promise.all(
        Array.from({ length: 60 }, () => recorder.start(asJob, 0, new Date(), null, null)),
      );
      await Promise.all(
        ids.map((id, n) =>
          recorder.recordProcessGroup(id, { pgid: 10_000 + n, leaderStartTicks: '123', bootId: 'boot' }),
        ),
      );
      // The first alone (nothing was being written), the rest together.
      expect(statements.length).toBeLessThanOrEqual(2);
      const recorded = await db.pool.query(
        'SELECT id, process_group FROM executions WHERE id = ANY($1::bigint[]) ORDER BY id',
        [ids],
      );
      expect(recorded.rows.map((row) => row.process_group)).toEqual(ids.map((_, n) => 10_000 + n));
    } finally {
      await db.close();
    }
  });
});

describe('TurnGate', () => {
  it('lets `perTurn` callers through a turn, the rest in later turns, in the order they came', async () => {
    const turns = turnCounter();
    const gate = new TurnGate(3);
    const passedIn: number[][] = [];
    await Promise.all(
      Array.from({ length: 10 }, async (_, n) => {
        await gate.pass();
        (passedIn[turns.now()] ??= []).push(n);
      }),
    );
    turns.stop();
    expect(passedIn.filter(Boolean)).toEqual([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]);
  });

  it('lets a caller through at once when its turn has room', async () => {
    const gate = new TurnGate(2);
    let passed = false;
    void gate.pass().then(() => (passed = true));
    await Promise.resolve();
    expect(passed).toBe(true);
  });
});

describe('inTurns', () => {
  it('calls `perTurn` items a turn, in order', async () => {
    const turns = turnCounter();
    const calledIn = new Map<number, number[]>();
    await inTurns([1, 2, 3, 4, 5, 6, 7], 3, (item) => {
      calledIn.set(turns.now(), [...(calledIn.get(turns.now()) ?? []), item]);
    });
    turns.stop();
    expect([...calledIn.values()]).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });
});
