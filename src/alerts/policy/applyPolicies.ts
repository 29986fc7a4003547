import type { AlertConfig } from '../../domain/alertConfig';
import { FRESH_POLICY_STATE, type PolicyState } from '../../domain/alertPolicy';
import { effectiveTimeZone } from '../../domain/job';
import type { RecordedExecution } from '../../store/transactionHooks';
import type { Queryable } from '../../store/database';
import { lockPolicyStates, savePolicyStates } from '../../store/alerts';
import { suspendJobs } from '../../store/jobs';
import { type AlertIntent, evaluateRun } from './evaluateRun';
import { mutedNote, openMaintenanceWindow } from './maintenance';

/** An alert a policy raised for a recorded run, to be queued for its destinations. */
export interface PolicyAlert {
  recorded: RecordedExecution;
  intent: AlertIntent;
}

/**
 * Runs the policies of the jobs whose runs a recording transaction just wrote (final attempts of
 * jobs that have a policy), inside that transaction: their states are read and locked in one
 * statement, each run is evaluated in the order the runs ended, and the states, the suspensions
 * and (by the caller) the alerts are written in one statement each. A job the policy suspends is
 * suspended only if it still fires: its `suspended` alert goes with that write, and only then.
 */
export async function applyPolicies(
  tx: Queryable,
  runs: readonly RecordedExecution[],
  configs: ReadonlyMap<number, AlertConfig>,
  context: { now: Date; defaultTimeZone: string },
): Promise<{ alerts: PolicyAlert[]; suspendedJobIds: number[] }> {
  const states: Map<number, PolicyState> = await lockPolicyStates(
    tx,
    runs.map((run) => run.job.id),
  );
  const alerts: PolicyAlert[] = [];
  const suspensions = new Map<number, string>();
  for (const recorded of [...runs].sort(byEnd)) {
    const { job, execution } = recorded;
    const policy = configs.get(job.id)?.policy;
    if (!policy) continue;
    const open = openMaintenanceWindow(
      policy.maintenance,
      effectiveTimeZone(job, context.defaultTimeZone),
      context.now,
    );
    const finishedAt = execution.finishedAt ?? execution.startedAt;
    const evaluation = evaluateRun(
      policy,
      states.get(job.id) ?? FRESH_POLICY_STATE,
      {
        status: execution.status as 'success' | 'failed' | 'timeout',
        durationMs: execution.durationMs ?? finishedAt.getTime() - execution.startedAt.getTime(),
        finishedAt,
      },
      {
        now: context.now,
        muted: open ? mutedNote(open) : null,
        canSuspend: job.enabled && !suspensions.has(job.id),
      },
    );
    states.set(job.id, evaluation.state);
    if (evaluation.suspend) suspensions.set(job.id, evaluation.suspend);
    for (const intent of evaluation.intents) alerts.push({ recorded, intent });
  }
  await savePolicyStates(
    tx,
    [...states].map(([jobId, state]) => ({ jobId, state })),
  );
  const suspendedJobIds = await suspendJobs(
    tx,
    [...suspensions].map(([jobId, reason]) => ({ jobId, reason })),
    context.now,
  );
  const suspended = new Set(suspendedJobIds);
  return {
    alerts: alerts.filter(
      ({ recorded, intent }) => intent.event !== 'suspended' || suspended.has(recorded.job.id),
    ),
    suspendedJobIds,
  };
}

function byEnd(a: RecordedExecution, b: RecordedExecution): number {
  const end = (r: RecordedExecution) => (r.execution.finishedAt ?? r.execution.startedAt).getTime();
  return end(a) - end(b) || a.execution.id - b.execution.id;
}
