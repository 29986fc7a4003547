/**
 * A CronJobWatch's `allowBackfill` (issue 40), mirrored on each of its CronJobs' job rows: a
 * watched CronJob is someone else's, so a backfill of it, which creates Jobs from its template, is
 * offered only where the selection says so.
 */
export const watchedBackfillSchema = `
ALTER TABLE jobs ADD COLUMN watched_allows_backfill boolean NOT NULL DEFAULT false;
`;
