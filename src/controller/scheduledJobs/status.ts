import type { ScheduledJob, ScheduledJobStatus } from '../resources/scheduledJob';
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
  /** The job's latest failed or timed-out run, if any (kubernetes#133662 asks this of CronJob). */
  lastFailure: LastFailure | null;
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
        lastTransitionTime:
          previous?.status === status
            ? previous.lastTransitionTime
            : now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        reason: readiness.reason,
        message: readiness.message,
      },
    ],
  };
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
