import type { DestinationEvent } from '../../domain/alertEvents';
import { type AlertPolicy, FRESH_POLICY_STATE, type PolicyState } from '../../domain/alertPolicy';
import type { NewAlertState } from '../../store/alerts';
import type { PolicyFacts } from '../alertSnapshot';

/** How a run ended, as the policy looks at it: its final attempt. */
export interface RunOutcome {
  status: 'success' | 'failed' | 'timeout';
  durationMs: number;
  finishedAt: Date;
}

/** An alert the policy raises for a run: sent (`pending`), or kept as history with why it was not. */
export interface AlertIntent {
  event: DestinationEvent;
  /** What makes the alert's subject with the execution id: `execution:<id>`, `recovered:<id>`... */
  subjectKind: 'execution' | 'recovered' | 'tooFast' | 'suspended';
  facts: PolicyFacts;
  state: NewAlertState;
  note: string | null;
}

export interface RunEvaluation {
  state: PolicyState;
  intents: AlertIntent[];
  /** Why the job is to be suspended now; null when it is not. */
  suspend: string | null;
}

export interface RunContext {
  now: Date;
  /** Why alerts are muted now (an open maintenance window), or null. */
  muted: string | null;
  /** The job fires on schedule (switched on, not suspended): only such a job is suspended. */
  canSuspend: boolean;
}

/**
 * What a job's policy makes of one finished run (docs/alert-policy.md), and its state after it. Pure:
 * the recorder's transaction reads the state, calls this for each run in the order they ended, and
 * writes the last state and the alerts back with the runs.
 *
 * - failed/timeout: alerted from the `afterConsecutiveFailures`th run of a streak on (before that
 *   suppressed); once alerted, with `repeatEverySeconds` a failure alerts again (a reminder) only
 *   when that long has passed since the last alert, else every failure alerts as without a policy.
 * - success: ends the streak; `recovered` when a failure of the streak was alerted (`recovery`);
 *   `tooFast` when shorter than `minDurationSeconds`.
 * - `suspendAfterFailures`: the run that makes that many failures in a row suspends the job.
 * - An open maintenance window mutes every alert of the run. Muted failures count toward the
 *   thresholds but are not "alerted" (nobody heard of them: no recovery, no reminder timing), and a
 *   job is not suspended while a window is open: failures there are expected.
 */
export function evaluateRun(
  policy: AlertPolicy,
  before: PolicyState,
  outcome: RunOutcome,
  context: RunContext,
): RunEvaluation {
  return outcome.status === 'success'
    ? evaluateSuccess(policy, before, outcome, context)
    : evaluateFailure(policy, before, outcome, context);
}

function evaluateSuccess(
  policy: AlertPolicy,
  before: PolicyState,
  outcome: RunOutcome,
  context: RunContext,
): RunEvaluation {
  const send = context.muted ? muted(context.muted) : SEND;
  const intents: AlertIntent[] = [{ event: 'success', subjectKind: 'execution', facts: {}, ...send }];
  if (policy.recovery && before.alertedFailure) {
    intents.push({
      event: 'recovered',
      subjectKind: 'recovered',
      facts: {
        consecutiveFailures: before.consecutiveFailures,
        ...(before.failingSince ? { failingSince: before.failingSince.toISOString() } : {}),
      },
      ...send,
    });
  }
  const min = policy.minDurationSeconds;
  if (min !== undefined && outcome.durationMs < min * 1000) {
    intents.push({ event: 'tooFast', subjectKind: 'tooFast', facts: { minDurationSeconds: min }, ...send });
  }
  return { state: FRESH_POLICY_STATE, intents, suspend: null };
}

function evaluateFailure(
  policy: AlertPolicy,
  before: PolicyState,
  outcome: RunOutcome,
  context: RunContext,
): RunEvaluation {
  const { now } = context;
  const consecutiveFailures = before.consecutiveFailures + 1;
  const state: PolicyState = {
    ...before,
    consecutiveFailures,
    failuresTowardSuspension: before.failuresTowardSuspension + 1,
    failingSince: before.failingSince ?? outcome.finishedAt,
  };
  const threshold = policy.afterConsecutiveFailures ?? 1;
  const repeatMs = policy.repeatEverySeconds === undefined ? null : policy.repeatEverySeconds * 1000;
  const facts: PolicyFacts = { consecutiveFailures };
  let disposition: Pick<AlertIntent, 'state' | 'note'>;
  if (context.muted) {
    disposition = muted(context.muted);
  } else if (consecutiveFailures < threshold) {
    disposition = suppressed(
      `failed run ${consecutiveFailures} of ${threshold} in a row: alerts from the ${ordinal(threshold)} ` +
        '(afterConsecutiveFailures)',
    );
  } else if (!before.alertedFailure || repeatMs === null) {
    disposition = SEND;
  } else {
    const dueAt = (before.lastAlertAt?.getTime() ?? 0) + repeatMs;
    if (now.getTime() >= dueAt) {
      disposition = SEND;
      facts.reminder = true;
    } else {
      disposition = suppressed(
        `still failing (${consecutiveFailures} in a row): reminded at most every ` +
          `${policy.repeatEverySeconds} s, next from ${new Date(dueAt).toISOString()} (repeatEverySeconds)`,
      );
    }
  }
  if (disposition.state === 'pending') {
    state.alertedFailure = true;
    state.lastAlertAt = now;
  }
  const intents: AlertIntent[] = [{ event: outcome.status, subjectKind: 'execution', facts, ...disposition }];

  const limit = policy.suspendAfterFailures;
  let suspend: string | null = null;
  if (
    limit !== undefined &&
    state.failuresTowardSuspension >= limit &&
    context.canSuspend &&
    !context.muted
  ) {
    suspend =
      `suspended after ${state.failuresTowardSuspension} failed runs in a row (suspendAfterFailures: ${limit}); ` +
      'switch the job on or run it to resume';
    intents.push({
      event: 'suspended',
      subjectKind: 'suspended',
      facts: { consecutiveFailures, suspendedReason: suspend },
      ...SEND,
    });
  }
  return { state, intents, suspend };
}

const SEND = { state: 'pending', note: null } as const;

function muted(note: string): Pick<AlertIntent, 'state' | 'note'> {
  return { state: 'muted', note: `muted: ${note}` };
}

function suppressed(note: string): Pick<AlertIntent, 'state' | 'note'> {
  return { state: 'suppressed', note };
}

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}
