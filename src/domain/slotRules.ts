import type { CatchUp, SlotOutcome } from './slots';

/** The first attempt of a run of the schedule (or a catch-up) for a slot. Backfill runs are not evidence. */
export interface SlotRun {
  executionId: number;
  startedAt: Date;
}

/** The claim a runner made on a slot before starting its command (Kubernetes runs). */
export interface SlotClaimEvidence {
  claimedAt: Date;
  runKey: string;
  /** Further claimants that were let run (the job allows duplicate slots). */
  duplicateKeys: string[];
  /** Further claimants that were refused: they did not run the command. */
  preventedKeys: string[];
}

/** A time during which nothing was meant to run: the job switched off, or the scheduler paused. */
export interface SlotHold {
  kind: 'suspended' | 'paused';
  fromAt: Date;
  /** Null while the hold lasts. */
  untilAt: Date | null;
  reason: string | null;
}

/**
 * An attempt of the job (any run but a backfill's) from its start to its end, that no process
 * watched throughout (its service crashed, or it is running now): a fire time that came meanwhile
 * found the job running, whether or not anyone wrote it down. Null `finishedAt`: still running.
 */
export interface ActiveRun {
  executionId: number;
  startedAt: Date;
  finishedAt: Date | null;
}

/** Everything known about one slot when it is judged. */
export interface SlotEvidence {
  runs: SlotRun[];
  /** `skipped` executions recorded for the slot: the previous run was still going. */
  skippedIds: number[];
  claim: SlotClaimEvidence | null;
  /** Holds of the job and of the scheduler, whether or not they cover the slot. */
  holds: SlotHold[];
  /**
   * Attempts of the job around the slot's time, whether or not they cover it: one going at the
   * slot's time makes it `skipped` even where no `skipped` row was recorded (the service was down
   * or stalled while the run went on, and its next start closed the run).
   */
  activeRuns?: ActiveRun[];
}

/** An attempt that had started before `time` and not finished by then. */
function runActiveAt(run: ActiveRun, time: Date): boolean {
  const t = time.getTime();
  return run.startedAt.getTime() < t && (run.finishedAt === null || t < run.finishedAt.getTime());
}

export interface SlotJudgement {
  outcome: SlotOutcome;
  executionIds: number[];
  startedAt: Date | null;
  delayMs: number | null;
  reason: string | null;
}

/** A hold covers the instants from its start up to, not including, its end. */
export function holdCovers(hold: SlotHold, time: Date): boolean {
  const t = time.getTime();
  return hold.fromAt.getTime() <= t && (hold.untilAt === null || t < hold.untilAt.getTime());
}

/**
 * The one outcome of a slot (docs/slots.md):
 * - runs that started for it: one → `ran` when it started within the grace, else `late`; more
 *   than one → `duplicate`, unless the others were refused by the claim (then `ran`, the reason
 *   naming the refused run);
 * - no run: `skipped` when a `skipped` row says the previous run was still going, `suspended` /
 *   `paused` when a hold covered its time, `skipped` when an attempt of the job was going at its
 *   time (no one recorded the fire time: the service was down), else `missed`, with `missedReason`.
 */
export function judgeSlot(
  scheduledAt: Date,
  evidence: SlotEvidence,
  graceMs: number,
  missedReason: string,
  /**
   * A watched CronJob's suspension (issue 40) is someone else's, perhaps a mistake: its slots are
   * `missed`, with the hold's reason, and alert as missed slots do.
   */
  suspensionMisses = false,
): SlotJudgement {
  const { runs, claim } = evidence;
  const runCount = Math.max(runs.length, claim ? 1 + claim.duplicateKeys.length : 0);
  const executionIds = runs.map((run) => run.executionId).sort((a, b) => a - b);
  if (runCount > 0) {
    const starts = [
      ...runs.map((run) => run.startedAt.getTime()),
      ...(claim ? [claim.claimedAt.getTime()] : []),
    ];
    const startedAt = new Date(Math.min(...starts));
    const delayMs = Math.max(0, startedAt.getTime() - scheduledAt.getTime());
    if (runCount > 1) {
      const how = claim && claim.duplicateKeys.length > 0 ? ' (the job allows duplicate slots)' : '';
      return {
        outcome: 'duplicate',
        executionIds,
        startedAt,
        delayMs,
        reason: `${runCount} runs started for this slot${how}`,
      };
    }
    const onTime = delayMs <= graceMs;
    const notes = [
      ...(onTime
        ? []
        : [`started ${describeDelay(delayMs)} after its time, past its grace of ${describeDelay(graceMs)}`]),
      ...(claim && claim.preventedKeys.length > 0 ? [preventedNote(claim.preventedKeys)] : []),
    ];
    return {
      outcome: onTime ? 'ran' : 'late',
      executionIds,
      startedAt,
      delayMs,
      reason: notes.length > 0 ? notes.join('; ') : null,
    };
  }
  if (evidence.skippedIds.length > 0) {
    return {
      outcome: 'skipped',
      executionIds: [...evidence.skippedIds].sort((a, b) => a - b),
      startedAt: null,
      delayMs: null,
      reason: 'the previous run of this job was still in progress',
    };
  }
  const covering = evidence.holds.filter((hold) => holdCovers(hold, scheduledAt));
  const suspended = covering.find((hold) => hold.kind === 'suspended');
  if (suspended && suspensionMisses) {
    return { outcome: 'missed', executionIds: [], startedAt: null, delayMs: null, reason: suspended.reason };
  }
  if (suspended) {
    return held('suspended', suspended.reason ?? 'the job was disabled at that time');
  }
  const paused = covering.find((hold) => hold.kind === 'paused');
  if (paused) return held('paused', paused.reason ?? 'the scheduler was paused at that time');
  const active = evidence.activeRuns?.find((run) => runActiveAt(run, scheduledAt));
  if (active) {
    return {
      outcome: 'skipped',
      executionIds: [],
      startedAt: null,
      delayMs: null,
      reason: `the previous run of this job (execution ${active.executionId}) was still in progress`,
    };
  }
  return { outcome: 'missed', executionIds: [], startedAt: null, delayMs: null, reason: missedReason };
}

function held(outcome: 'suspended' | 'paused', reason: string): SlotJudgement {
  return { outcome, executionIds: [], startedAt: null, delayMs: null, reason };
}

function preventedNote(keys: string[]): string {
  return keys.length === 1
    ? `a second run for this slot was prevented (run ${keys[0]})`
    : `${keys.length} more runs for this slot were prevented (runs ${keys.join(', ')})`;
}

/** "950 ms", "42 s", "3 min 5 s", "2 h 1 min": a delay as a person reads it. */
export function describeDelay(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

/**
 * Which missed slots a catch-up runs, oldest first: none, the latest, or the latest `maxRuns`;
 * only slots less than `withinSeconds` before `now`. `missed` is oldest first.
 */
export function slotsToCatchUp(policy: CatchUp, missed: Date[], now: Date): Date[] {
  if (policy.policy === 'none') return [];
  const oldest = now.getTime() - policy.withinSeconds * 1000;
  const within = missed.filter((slot) => slot.getTime() > oldest);
  return within.slice(policy.policy === 'latest' ? -1 : -policy.maxRuns);
}
