import type { Logger } from '../logging/logger';
import { endLeftoverGroup, type LeftoverOutcome } from '../runner/leftoverGroup';
import type { Queryable } from '../store/database';
import { listRunningProcessGroups } from '../store/runningAttempts';

/** How a run abandoned by a crash is closed: its exit code and a line for its stderr. */
export interface AbandonedRunEnding {
  exitCode: number;
  note: string;
}

/** As long as a timeout's grace between TERM and KILL. */
const LEFTOVER_KILL_GRACE_MS = 5000;

const STOPPED = '[crondeck] the service stopped during this run (its output until then was not kept)';

/**
 * Ends the processes that runs abandoned by a crash left running (their process groups were
 * recorded as they started), before those runs are closed, and says how each run ended. Runs
 * whose group was not recorded, or cannot be checked here, are left to the generic close.
 */
export async function endLeftoverRuns(
  db: Queryable,
  logger: Logger,
  graceMs = LEFTOVER_KILL_GRACE_MS,
): Promise<Map<number, AbandonedRunEnding>> {
  const endings = new Map<number, AbandonedRunEnding>();
  const runs = await listRunningProcessGroups(db);
  const outcomes = await Promise.all(runs.map((run) => endLeftoverGroup(run.group, graceMs)));
  runs.forEach((run, index) => {
    const ending = describe(outcomes[index]!);
    if (!ending) return;
    if (outcomes[index]!.kind === 'ended') {
      logger.warn('ended processes left running by the previous stop', {
        executionId: run.executionId,
        processGroup: run.group.pgid,
        exitCode: ending.exitCode,
      });
    }
    endings.set(run.executionId, ending);
  });
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
