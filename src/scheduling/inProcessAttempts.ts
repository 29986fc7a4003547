import type { Job } from '../domain/job';
import type { RunSlot } from '../domain/slots';
import type { AttemptRecorder } from '../runner/attemptLoop';
import type { ExecutionRecorder } from './executionRecorder';
import { TurnGate } from './turnGate';

/**
 * Commands of in-process attempts started in one turn of the event loop at most: a fork and exec
 * take milliseconds of this thread each, and a fire time of thousands of jobs started hundreds in
 * one turn (their starts committed together), holding every request back for seconds
 * (docs/operations.md, "Many runs at one fire time"). One gate for the process: it has one loop.
 */
const COMMANDS_STARTED_PER_TURN = 2;
const startGate = new TurnGate(COMMANDS_STARTED_PER_TURN);

/**
 * The attempt loop's recorder for a run in this process: straight to the execution recorder. Its
 * attempts name `owner`, this process's registration (null: none), so that another process
 * closes them only once this one is gone. Every attempt of a run for a slot names it. An attempt
 * whose start is recorded waits for its turn (`startGate`) before its command is started: the
 * starts of a fire time's runs are written together, and their commands started a few at a time.
 */
export function inProcessAttemptRecorder(
  recorder: ExecutionRecorder,
  job: Job,
  owner: number | null,
  slot: RunSlot | null = null,
): AttemptRecorder {
  return {
    startAttempt: async (attempt, startedAt) => {
      const executionId = await recorder.start(job, attempt, startedAt, owner, slot);
      await startGate.pass();
      return executionId;
    },
    // Null: another process closed the attempt already, as its owner's (this process's) seemed gone.
    finishAttempt: async (executionId, result, finalAttempt) =>
      (await recorder.finish(job, executionId, result, finalAttempt)) !== null,
    recordProcessGroup: (executionId, group) => recorder.recordProcessGroup(executionId, group),
  };
}
