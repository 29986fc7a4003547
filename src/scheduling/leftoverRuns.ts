import type { Logger } from '../logging/logger';
import { endLeftoverGroup, type LeftoverOutcome } from '../runner/leftoverGroup';
import type { ProcessGroup } from '../runner/processGroup';

/** How a run abandoned by a crash is closed: its exit code and a line for its stderr. */
export interface AbandonedRunEnding {
  exitCode: number;
  note: string;
}

/** An attempt in progress whose owner is provably gone (runtime/local/runOwners.ts). */
export interface AbandonedAttempt {
  executionId: number;
  /** Where its processes are, if recorded. */
  group: ProcessGroup | null;
  /**
   * Its owner ran where this process can look its processes up and signal them (the same boot
   * and PID namespace); false for an owner on another machine, whose processes are out of reach.
   */
  reachable: boolean;
}

/** As long as a timeout's grace between TERM and KILL. */
const LEFTOVER_KILL_GRACE_MS = 5000;

const STOPPED = '[crondeck] the service stopped during this run (its output until then was not kept)';

const OUT_OF_REACH =
  '[crondeck] the process running this attempt stopped giving signs of life on another machine; ' +
  'its outcome is unknown (its output until then was not kept)';

/**
 * Ends the processes that abandoned runs left running (their process groups were recorded as they
 * started), before those runs are closed, and says how each run ended. Only groups within reach
 * are signalled, and only when provably the same group (leftoverGroup.ts).
 */
export async function endLeftoverRuns(
  attempts: AbandonedAttempt[],
  logger: Logger,
  graceMs = LEFTOVER_KILL_GRACE_MS,
): Promise<Map<number, AbandonedRunEnding>> {
  const endings = new Map<number, AbandonedRunEnding>();
  await Promise.all(
    attempts.map(async (attempt) => {
      if (!attempt.reachable) {
        endings.set(attempt.executionId, { exitCode: -1, note: `\n${OUT_OF_REACH}\n` });
        return;
      }
      const outcome = attempt.group ? await endLeftoverGroup(attempt.group, graceMs) : null;
      const ending = outcome ? describe(outcome) : null;
      if (outcome?.kind === 'ended') {
        logger.warn('ended processes left running by the previous stop', {
          executionId: attempt.executionId,
          processGroup: attempt.group!.pgid,
          exitCode: outcome.exitCode,
        });
      }
      endings.set(attempt.executionId, ending ?? { exitCode: -1, note: `\n${STOPPED}\n` });
    }),
  );
  return endings;
}

function describe(outcome: LeftoverOutcome): AbandonedRunEnding | null {
  switch (outcome.kind) {
    case 'ended':
      return {
        exitCode: outcome.exitCode,
        note: `\n${STOPPED}; at the next start its remaining processes were ended with ${outcome.signal}\n`,
      };
    case 'gone':
      return {
        exitCode: -1,
        note:
          outcome.reason === 'rebooted'
            ? `\n${STOPPED}; the machine restarted before the next start, so its exit code is unknown\n`
            : `\n${STOPPED}; its processes had ended by the next start, with an exit code no one saw\n`,
      };
    case 'unknown':
      return null;
  }
}
