/**
 * Plain CronJobs that a CronJobWatch selects (issue 40): each is a job row with `source = 'cronjob'`,
 * `resource_namespace` its namespace, and here its name, its UID (a CronJob deleted and created
 * again under the same name has a new one) and the CronJobWatch that selects it. `watched_by` is
 * null once no selection holds it: its history stays, it is judged no more.
 * `resource_name` stays null for these rows: it names a ScheduledJob, which a watched CronJob has not.
 */
export const watchedCronJobsSchema = `
ALTER TABLE jobs ADD COLUMN cron_job_name text;
ALTER TABLE jobs ADD COLUMN cron_job_uid text;
ALTER TABLE jobs ADD COLUMN watched_by text;
CREATE UNIQUE INDEX jobs_watched_cron_job ON jobs (resource_namespace, cron_job_name)
  WHERE cron_job_name IS NOT NULL;
`;
