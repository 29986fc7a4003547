/**
 * However an attempt's start fails (its runner throws, or its promise rejects), the attempt whose
 * row says `running` is closed as failed with the error as its reason, and the run goes on to its
 * retries: never a row left `running` and a run that never ends.
 */
import type { AttemptResult } from '../../src/domain/execution';
import { type AttemptRecorder, type ExecuteAttempt, runAttempts } from '../../src/runner/attemptLoop';
import { createMemoryLogger } from '../support/memoryLogger';

function memoryRecorder() {
  const finished: (AttemptResult & { id: number; final: boolean })[] = [];
  const recorder: AttemptRecorder = {
    startAttempt: async (attempt) => 100 + attempt,
    async finishAttempt(id, result, final) {
      finished.push({ ...result, id, final });
    },
  };
  return { recorder, finished };
}

const job = { id: 1, name: 'j', command: 'true', timeout: 0, retry: { maxAttempts: 1, baseDelay: 0 } };

describe('an attempt whose start fails', () => {
  const cases: [string, ExecuteAttempt][] = [
    [
      'throws',
      () => {
        throw Object.assign(new Error('spawn E2BIG'), { code: 'E2BIG' });
      },
    ],
    ['rejects', () => Promise.reject(Object.assign(new Error('spawn E2BIG'), { code: 'E2BIG' }))],
  ];

  it.each(cases)(
    'is recorded as failed with the error when its runner %s, and retried',
    async (_, execute) => {
      const { recorder, finished } = memoryRecorder();
      await runAttempts(job, new AbortController().signal, {
        recorder,
        logger: createMemoryLogger(),
        execute,
        sleep: async () => undefined,
      });
      expect(finished).toHaveLength(2);
      for (const [attempt, record] of finished.entries()) {
        expect(record).toMatchObject({
          id: 100 + attempt,
          status: 'failed',
          exitCode: 127,
          stderr: '[crondeck] could not start the command: spawn E2BIG\n',
          reason: { code: 'StartError', message: expect.stringContaining('spawn E2BIG') as string },
          final: attempt === 1,
        });
      }
    },
  );
});
