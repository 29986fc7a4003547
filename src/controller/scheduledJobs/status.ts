import type { ScheduledJob, ScheduledJobStatus } from '../../kube/resources/scheduledJob';
import type { LastFailure } from '../../domain/failureReasons';

/** The Ready condition: whether the job is in the service and its CronJob matches the spec. */
export interface Readiness {
  ready: boolean;
  /** CamelCase: Reconciled, InvalidSpec, NameConflict, ClusterRefused... */
  reason: string;
  message: string;
}

export interface ObservedJob {
  jobId: number | null;
  nextRun: Date | null;
  lastRun: Date | null;
  lastStatus: ScheduledJobStatus['lastStatus'] | null;
  /** Why the job's alert policy suspended it; null when it is not suspended. */
  suspendedReason?: string | null;
  /** The job's latest failed or timed-out run, if any (kubernetes#133662 asks this of CronJob). */
  lastFailure: LastFailure | null;
}

type Condition = NonNullable<ScheduledJobStatus['conditions']>[number];

/** Kubernetes `date-time` of a condition's transition: seconds, as the API server writes them. */
const transitionTime = (previous: Condition | undefined, status: string, now: Date) =>
  previous?.status === status ? previous.lastTransitionTime : isoSeconds(now);

/**
 * The Suspended condition: True while the job's alert policy holds it suspended after failing runs
 * (the message says why and how to resume), False once it was resumed; absent on a job that was
 * never suspended, so a job without a policy shows what it always did.
 */
function suspendedCondition(
  previous: Condition | undefined,
  reason: string | null,
  generation: number,
  now: Date,
): Condition | null {
  if (reason === null && previous === undefined) return null;
  const status = reason === null ? 'False' : 'True';
  return {
    type: 'Suspended',
    status,
    observedGeneration: generation,
    lastTransitionTime: transitionTime(previous, status, now),
    reason: reason === null ? 'Resumed' : 'TooManyFailures',
    message: reason ?? 'the job runs on its schedule again',
  };
}

/**
 * The status a ScheduledJob should show. The Ready condition keeps its lastTransitionTime while
 * its status stays the same (the Kubernetes convention), so a reconcile that changes nothing
 * produces the same status and no write.
 */
export function desiredStatus(
  resource: ScheduledJob,
  observed: ObservedJob,
  readiness: Readiness,
  now: Date,
): ScheduledJobStatus {
  const status = readiness.ready ? 'True' : 'False';
  const previous = resource.status?.conditions?.find((condition) => condition.type === 'Ready');
  const generation = resource.metadata.generation ?? 0;
  const result: ScheduledJobStatus = {
    observedGeneration: generation,
    conditions: [
      {
        type: 'Ready',
        status,
        observedGeneration: generation,
        lastTransitionTime: transitionTime(previous, status, now),
        reason: readiness.reason,
        message: readiness.message,
      },
    ],
  };
  const suspended = suspendedCondition(
    resource.status?.conditions?.find((condition) => condition.type === 'Suspended'),
    observed.suspendedReason ?? null,
    generation,
    now,
  );
  if (suspended) result.conditions!.push(suspended);
  if (observed.jobId !== null) result.jobId = observed.jobId;
  if (observed.nextRun) result.nextRun = isoSeconds(observed.nextRun);
  if (observed.lastRun) result.lastRun = isoSeconds(observed.lastRun);
  if (observed.lastStatus) result.lastStatus = observed.lastStatus;
  if (observed.lastFailure) {
    result.lastFailureTime = isoSeconds(observed.lastFailure.at);
    result.lastFailureReason = observed.lastFailure.reason.code;
    result.lastFailureMessage = observed.lastFailure.reason.message;
  }
  return result;
}

/** True when `desired` says something `current` does not (field order and absent keys aside). */
export function statusDiffers(current: ScheduledJobStatus | undefined, desired: ScheduledJobStatus): boolean {
  return canonical(current ?? {}) !== canonical(desired);
}

/** Kubernetes `date-time` values carry seconds, like the API server's own timestamps. */
function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
      : inner,
  );
}
