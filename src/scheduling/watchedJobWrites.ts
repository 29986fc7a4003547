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
