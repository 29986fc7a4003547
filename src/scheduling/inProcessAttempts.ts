import type { Job } from '../domain/job';
import type { RunSlot } from '../domain/slots';
import type { AttemptRecorder } from '../runner/attemptLoop';
import type { ExecutionRecorder } from './executionRecorder';

/**
 * The attempt loop's recorder for a run in this process: straight to the execution recorder. Its
 * attempts name `owner`, this process's registration (null: none), so that another process
 * closes them only once this one is gone. Every attempt of a run for a slot names it.
 */
export function inProcessAttemptRecorder(
  recorder: ExecutionRecorder,
  job: Job,
  owner: number | null,
  slot: RunSlot | null = null,
): AttemptRecorder {
  return {
    startAttempt: (attempt, startedAt) => recorder.start(job, attempt, startedAt, owner, slot),
    // Null: another process closed the attempt already, as its owner's (this process's) seemed gone.
    finishAttempt: async (executionId, result, finalAttempt) =>
      (await recorder.finish(job, executionId, result, finalAttempt)) !== null,
    recordProcessGroup: (executionId, group) => recorder.recordProcessGroup(executionId, group),
  };
}
