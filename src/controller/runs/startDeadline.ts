import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { FailureReason } from '../../domain/execution';
import { runWaitingSince } from './jobOutcome';
import { cannotStartAlone } from './podDiagnosis';

/**
 * How long a run may wait for what it cannot get by itself (an image that cannot be pulled, a
 * Secret or ConfigMap that is missing, a pod that admission keeps refusing) before the controller
 * ends it. Without a timeout a Job has no deadline, so such a run would stay active forever and,
 * under the default `concurrencyPolicy: Forbid`, keep the CronJob from ever firing again, even
 * after the ScheduledJob is fixed: its Job keeps the old pod template. Ten minutes is also how
 * long the runner's sidecar waits for the job container (runner/supervisor.ts).
 */
export const RUN_START_DEADLINE_MS = 10 * 60_000;

export type StartVerdict =
  /** Running, finished, or waiting for something that comes by itself (a node, an image pull). */
  | { verdict: 'fine' }
  /** Stuck, not for long enough yet: look again in `inMs`. */
  | { verdict: 'wait'; inMs: number }
  /** Stuck for too long: end the Job now, `activeDeadlineSeconds` set to `afterSeconds`. */
  | { verdict: 'end'; afterSeconds: number; reason: FailureReason };

/**
 * Whether an active Job's run is stuck before it could start: its newest pod waits for what will
 * not come without someone's help (`seen`, podDiagnosis.ts), or the Job has had no pod at all (the
 * API server refuses to create it: a ResourceQuota, a LimitRange, a Pod Security admission). A
 * pod the scheduler cannot place yet is left waiting: a node may come (autoscaling), and a
 * ScheduledJob's timeout bounds that wait when the user wants one.
 */
export function startVerdict(
  job: V1Job,
  pods: readonly V1Pod[],
  seen: FailureReason | null | undefined,
  now: Date,
  deadlineMs = RUN_START_DEADLINE_MS,
): StartVerdict {
  if (job.spec?.suspend) return { verdict: 'fine' };
  const reason: FailureReason | null =
    pods.length === 0
      ? {
          code: 'FailedCreate',
          message: `the Job made no pod in ${minutes(deadlineMs)}: the API server refused it (a ResourceQuota, a LimitRange or an admission policy; its events say which)`,
        }
      : seen && cannotStartAlone(seen)
        ? seen
        : null;
  if (!reason) return { verdict: 'fine' };
  const since = runWaitingSince(job);
  if (since === null) return { verdict: 'fine' };
  const waited = now.getTime() - since.getTime();
  if (waited < deadlineMs) return { verdict: 'wait', inMs: deadlineMs - waited };
  const afterSeconds = Math.max(1, Math.floor(waited / 1000));
  // A deadline of its own that has passed already ends it.
  const own = job.spec?.activeDeadlineSeconds;
  if (own !== undefined && own <= afterSeconds) return { verdict: 'fine' };
  return { verdict: 'end', afterSeconds, reason };
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m === 1 ? '1 minute' : `${m} minutes`;
}
