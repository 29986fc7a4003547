import { runAttempts } from '../../src/runner/attemptLoop';
import type { CommandResult } from '../../src/runner/runCommand';

const result = (status: CommandResult['status'], exitCode: number): CommandResult => ({
  status,
  exitCode,
  stdout: '',
  stderr: `exit ${exitCode}\n`,
  startedAt: new Date(),
  finishedAt: new Date(),
});

function harness(outcomes: CommandResult[]) {
  const log: string[] = [];
  const slept: number[] = [];
  const recorder = {
    started: async (attempt: number) => {
      log.push(`start ${attempt}`);
      return `h${attempt}`;
    },
    finished: async (handle: string, attempt: number, r: CommandResult, final: boolean) => {
      log.push(`finish ${handle} ${attempt} ${r.status}${final ? ' final' : ''}`);
    },
  };
  let next = 0;
  const execute = async () => outcomes[next++]!;
  const sleep = async (ms: number) => {
    slept.push(ms);
  };
  return { log, slept, recorder, execute, sleep };
}

describe('runAttempts', () => {
  it('retries failed attempts with doubling delays and records each, the last as final', async () => {
    const h = harness([result('failed', 1), result('failed', 1), result('success', 0)]);
    const last = await runAttempts({
      retry: { maxAttempts: 3, baseDelay: 10 },
      execute: h.execute,
      recorder: h.recorder,
      sleep: h.sleep,
      signal: new AbortController().signal,
    });
    expect(last?.status).toBe('success');
    expect(h.slept).toEqual([10_000, 20_000]);
    expect(h.log).toEqual([
      'start 0',
      'finish h0 0 failed',
      'start 1',
      'finish h1 1 failed',
      'start 2',
      'finish h2 2 success final',
    ]);
  });

  it('makes 1 + maxAttempts attempts at most, the last one final', async () => {
    const h = harness([result('failed', 1), result('failed', 2)]);
    const last = await runAttempts({
      retry: { maxAttempts: 1, baseDelay: 0 },
      execute: h.execute,
      recorder: h.recorder,
      sleep: h.sleep,
      signal: new AbortController().signal,
    });
    expect(last?.exitCode).toBe(2);
    expect(h.log.filter((line) => line.startsWith('finish'))).toEqual([
      'finish h0 0 failed',
      'finish h1 1 failed final',
    ]);
  });

  it('does not retry a timeout', async () => {
    const h = harness([result('timeout', 143), result('success', 0)]);
    await runAttempts({
      retry: { maxAttempts: 5, baseDelay: 1 },
      execute: h.execute,
      recorder: h.recorder,
      sleep: h.sleep,
      signal: new AbortController().signal,
    });
    expect(h.log).toEqual(['start 0', 'finish h0 0 timeout final']);
  });

  it('records an attempt stopped by the signal as final, with the reason, and retries no more', async () => {
    const abort = new AbortController();
    const h = harness([result('failed', 143)]);
    const last = await runAttempts({
      retry: { maxAttempts: 5, baseDelay: 1 },
      execute: async () => {
        abort.abort();
        return result('failed', 143);
      },
      recorder: h.recorder,
      sleep: h.sleep,
      signal: abort.signal,
      abortNote: '[stopped]\n',
    });
    expect(last?.stderr).toBe('exit 143\n[stopped]\n');
    expect(h.log).toEqual(['start 0', 'finish h0 0 failed final']);
  });
});
