import type { AttemptResult } from '../../src/domain/execution';
import {
  type AttemptRecorder,
  type RunnableJob,
  runAttempts,
  STOPPED_NOTE,
} from '../../src/runner/attemptLoop';
import type { CommandResult } from '../../src/runner/runCommand';
import { createMemoryLogger } from '../support/memoryLogger';

/** A recorder that keeps what it is told, and can fail like a database that is away. */
function memoryRecorder(options: { unavailableTimes?: number } = {}) {
  let failuresLeft = options.unavailableTimes ?? 0;
  const events: string[] = [];
  const finished: (AttemptResult & { id: number; final: boolean })[] = [];
  const unavailable = () => {
    if (failuresLeft-- > 0) throw Object.assign(new Error('Connection terminated'), { code: '57P01' });
  };
  const recorder: AttemptRecorder = {
    async startAttempt(attempt) {
      unavailable();
      events.push(`start ${attempt}`);
      return 100 + attempt;
    },
    async finishAttempt(id, result, final) {
      unavailable();
      events.push(`finish ${id} ${result.status}${final ? ' final' : ''}`);
      finished.push({ ...result, id, final });
    },
  };
  return { recorder, events, finished };
}

function outcomes(...statuses: CommandResult['status'][]) {
  const calls: number[] = [];
  const execute = async (_job: RunnableJob, attempt: number): Promise<CommandResult> => {
    calls.push(attempt);
    const now = new Date();
    const status = statuses[attempt]!;
    return {
      status,
      exitCode: status === 'success' ? 0 : 1,
      stdout: '',
      stderr: '',
      startedAt: now,
      finishedAt: now,
    };
  };
  return { execute, calls };
}

const job = (retry: RunnableJob['retry']): RunnableJob => ({
  id: 1,
  name: 'j',
  command: 'true',
  timeout: 0,
  retry,
});

describe('the attempt loop', () => {
  const logger = createMemoryLogger();

  it('records each attempt as it starts and finishes, retrying failures with backoff', async () => {
    const { recorder, events } = memoryRecorder();
    const { execute } = outcomes('failed', 'failed', 'success');
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    await runAttempts(job({ maxAttempts: 3, baseDelay: 2 }), new AbortController().signal, {
      recorder,
      logger,
      execute,
      sleep,
    });
    expect(events).toEqual([
      'start 0',
      'finish 100 failed',
      'start 1',
      'finish 101 failed',
      'start 2',
      'finish 102 success final',
    ]);
    expect(waits).toEqual([2000, 4000]);
  });

  it('does not retry a timeout', async () => {
    const { recorder, events } = memoryRecorder();
    const { execute } = outcomes('timeout', 'success');
    await runAttempts(job({ maxAttempts: 3, baseDelay: 0 }), new AbortController().signal, {
      recorder,
      logger,
      execute,
    });
    expect(events).toEqual(['start 0', 'finish 100 timeout final']);
  });

  it('stops at an abort: the attempt is final and says why, no retry follows', async () => {
    const { recorder, finished } = memoryRecorder();
    const abort = new AbortController();
    const { execute, calls } = outcomes('failed', 'success');
    const aborting = async (j: RunnableJob, attempt: number) => {
      abort.abort();
      return execute(j, attempt);
    };
    await runAttempts(job({ maxAttempts: 3, baseDelay: 0 }), abort.signal, {
      recorder,
      logger,
      execute: aborting,
    });
    expect(calls).toEqual([0]);
    expect(finished).toMatchObject([{ status: 'failed', final: true, stderr: STOPPED_NOTE }]);
  });

  it('keeps recording while the database is unavailable', async () => {
    const { recorder, events } = memoryRecorder({ unavailableTimes: 2 });
    const { execute } = outcomes('success');
    await runAttempts(job(null), new AbortController().signal, { recorder, logger, execute });
    expect(events).toEqual(['start 0', 'finish 100 success final']);
  });

  it('ends the run when another process had closed its attempt already: no retry is recorded beside it', async () => {
    const { recorder, events } = memoryRecorder();
    const closedElsewhere: AttemptRecorder = {
      ...recorder,
      finishAttempt: async (id, result, final) => {
        await recorder.finishAttempt(id, result, final);
        return false;
      },
    };
    const { execute, calls } = outcomes('failed', 'success');
    await runAttempts(job({ maxAttempts: 1, baseDelay: 0 }), new AbortController().signal, {
      recorder: closedElsewhere,
      logger,
      execute,
      sleep: async () => undefined,
    });
    expect(calls).toEqual([0]);
    expect(events).toEqual(['start 0', 'finish 100 failed']);
  });
});
