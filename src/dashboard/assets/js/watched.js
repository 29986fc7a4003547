/**
 * A watched CronJob's job (issue 40, docs/watched-cronjobs.md): its spec is the CronJob's owner's,
 * so editing and deleting it are not offered (nor backfilling it, unless its CronJobWatch allows
 * it); run now and the switch act on the CronJob. Null for every other job.
 */
export function ownedElsewhere(job) {
  if (job?.source !== 'cronjob' || !job.cronJob) return null;
  const { namespace, name } = job.cronJob;
  return `CronJob ${namespace}/${name} is its owner’s, not Crondeck’s: change it there (kubectl -n ${namespace} edit cronjob ${name}).`;
}

/**
 * Why a watched CronJob's job offers no backfill (its CronJobWatch does not set `allowBackfill`);
 * null where it does, or for any other job.
 */
export function backfillRefusal(job) {
  const owner = ownedElsewhere(job);
  if (!owner || job.cronJob.allowBackfill) return null;
  return `${owner} Its CronJobWatch does not allow backfill (allowBackfill: true).`;
}

/** The line that says where a watched CronJob's job comes from. */
export function watchedOrigin(job) {
  if (job?.source !== 'cronjob' || !job.cronJob) return null;
  const { namespace, name, watchedBy } = job.cronJob;
  return watchedBy
    ? `CronJob ${namespace}/${name}, watched by CronJobWatch ${watchedBy}`
    : `CronJob ${namespace}/${name}, no longer watched`;
}
