import { type RunOutcome, evaluateRun } from '../../src/alerts/policy/evaluateRun';
import { type AlertPolicy, FRESH_POLICY_STATE, type PolicyState } from '../../src/domain/alertPolicy';

const now = new Date('2026-03-10T12:00:00Z');
const failed: RunOutcome = { status: 'failed', durationMs: 1000, finishedAt: now };
const success: RunOutcome = { status: 'success', durationMs: 1000, finishedAt: now };
const open = { now, muted: null, canSuspend: true };

/** Runs `outcomes` through the policy one after another; answers each run's alerts as "event:state". */
function play(policy: AlertPolicy, outcomes: [RunOutcome, { muted?: string; canSuspend?: boolean }?][]) {
  let state: PolicyState = FRESH_POLICY_STATE;
  return outcomes.map(([outcome, context]) => {
    const result = evaluateRun(policy, state, outcome, {
      ...open,
      ...context,
      muted: context?.muted ?? null,
    });
    state = result.state;
    return { alerts: result.intents.map((i) => `${i.event}:${i.state}`), suspend: result.suspend !== null };
  });
}

describe('what an alert policy makes of a run', () => {
  it('does not recover from failures nobody heard of (muted)', () => {
    const runs = play({ recovery: true }, [[failed, { muted: 'window' }], [success]]);
    expect(runs.map((run) => run.alerts)).toEqual([['failed:muted'], ['success:pending']]);
  });

  it('counts muted failures toward the threshold but suspends only once the window has closed', () => {
    const runs = play({ afterConsecutiveFailures: 2, suspendAfterFailures: 2 }, [
      [failed, { muted: 'window' }],
      [failed, { muted: 'window' }],
      [failed],
    ]);
    expect(runs).toEqual([
      { alerts: ['failed:muted'], suspend: false },
      { alerts: ['failed:muted'], suspend: false },
      { alerts: ['failed:pending', 'suspended:pending'], suspend: true },
    ]);
  });

  it('leaves a job that does not fire (switched off, already suspended) alone', () => {
    const runs = play({ suspendAfterFailures: 1 }, [[failed, { canSuspend: false }]]);
    expect(runs).toEqual([{ alerts: ['failed:pending'], suspend: false }]);
  });

  it('ends the streak with a success: the threshold counts from zero again', () => {
    const runs = play({ afterConsecutiveFailures: 2 }, [[failed], [failed], [success], [failed]]);
    expect(runs.map((run) => run.alerts[0])).toEqual([
      'failed:suppressed',
      'failed:pending',
      'success:pending',
      'failed:suppressed',
    ]);
  });
});
