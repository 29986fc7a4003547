import type { CronJobWatch } from '../../kube/resources/cronJobWatch';

type Status = NonNullable<CronJobWatch['status']>;

/** At most this many problems are named in the Ready condition; the count says the rest. */
const PROBLEMS_NAMED = 5;

/**
 * A CronJobWatch's status: how many CronJobs it watches, and Ready (False naming what keeps a
 * selected CronJob unwatched: a schedule Crondeck cannot read, a job name taken, a missing Secret).
 */
export function watchStatus(watch: CronJobWatch, watching: number, problems: string[], now: Date): Status {
  const generation = watch.metadata?.generation ?? 0;
  const ready = problems.length === 0;
  const shown = problems.slice(0, PROBLEMS_NAMED).join('; ');
  const more = problems.length > PROBLEMS_NAMED ? `; and ${problems.length - PROBLEMS_NAMED} more` : '';
  const message = ready ? `watching ${watching} CronJob${watching === 1 ? '' : 's'}` : `${shown}${more}`;
  const previous = watch.status?.conditions?.find((condition) => condition.type === 'Ready');
  const status = ready ? 'True' : 'False';
  return {
    observedGeneration: generation,
    watching,
    conditions: [
      {
        type: 'Ready',
        status,
        reason: ready ? 'Watching' : 'NotWatchable',
        message,
        observedGeneration: generation,
        lastTransitionTime:
          previous?.status === status && previous.lastTransitionTime
            ? previous.lastTransitionTime
            : now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    ],
  };
}

/** Whether writing `desired` would change what the resource shows (the transition time aside). */
export function watchStatusDiffers(current: Status | undefined, desired: Status): boolean {
  const strip = (status: Status | undefined) => ({
    ...status,
    conditions: status?.conditions?.map(({ lastTransitionTime: _time, ...rest }) => rest),
  });
  return JSON.stringify(strip(current)) !== JSON.stringify(strip(desired));
}
