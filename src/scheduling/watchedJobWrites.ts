import { conflict } from '../domain/errors';
import type { Job } from '../domain/job';

/**
 * A watched CronJob's job mirrors a CronJob someone else owns (a Helm chart, a GitOps repository):
 * its spec is theirs to change, and a write through Crondeck would be undone by the next mirror.
 * Refused with 409 naming the owner.
 */
export function refuseWriteOfWatched(job: Job | null, what: string): void {
  if (!job?.cronJob) return;
  const { namespace, name } = job.cronJob;
  throw conflict(
    `job ${job.id} mirrors CronJob ${namespace}/${name}, which Crondeck watches but does not own: ` +
      `${what} the CronJob itself (kubectl -n ${namespace} edit cronjob ${name})`,
  );
}

/**
 * Backfill starts Jobs of someone else's CronJob: not offered for a watched one (its owner can
 * start a missed fire time with `kubectl create job --from=cronjob/…`) unless its CronJobWatch
 * allows it (`allowBackfill: true`).
 */
export function refuseBackfillOfWatched(job: Job, onCluster: boolean): void {
  if (!job.cronJob) return;
  const { namespace, name } = job.cronJob;
  if (!onCluster) {
    throw conflict(
      `job ${job.id} mirrors CronJob ${namespace}/${name}: only Crondeck on its cluster can backfill it`,
    );
  }
  if (job.cronJob.allowBackfill) return;
  throw conflict(
    `job ${job.id} mirrors CronJob ${namespace}/${name}, which Crondeck watches but does not own: ` +
      `backfill is not offered for it unless its CronJobWatch sets allowBackfill: true ` +
      `(kubectl -n ${namespace} create job --from=cronjob/${name} NAME runs it once)`,
  );
}
