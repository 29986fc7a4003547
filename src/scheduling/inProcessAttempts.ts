import type { Job } from '../domain/job';
import type { AttemptRecorder } from '../runner/attemptLoop';
import type { ExecutionRecorder } from './executionRecorder';

/** The attempt loop's recorder for a run in this process: straight to the execution recorder. */
export function inProcessAttemptRecorder(recorder: ExecutionRecorder, job: Job): AttemptRecorder {
  return {
    startAttempt: (attempt, startedAt) => recorder.start(job, attempt, startedAt),
    finishAttempt: async (executionId, result, finalAttempt) => {
      await recorder.finish(job, executionId, result, finalAttempt);
    },
    recordProcessGroup: (executionId, group) => recorder.recordProcessGroup(executionId, group),
  };
}
