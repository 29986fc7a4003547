/**
 * Who did it, where the service knows (SERVICE_AUTH=kubernetes: the caller's Kubernetes username).
 *
 * - `jobs.changed_by`: who made the job's last change through the API (create, replace, toggle);
 *   null when it was someone the service cannot name (the shared token, a config file, a
 *   `kubectl` edit of the ScheduledJob, which the controller mirrors).
 * - `executions.triggered_by`: who started the run by hand (run now, backfill); null for the
 *   schedule's runs and wherever the service cannot name the person.
 * - `run_triggers`: who created a cluster run (the Kubernetes Job of a run now, by its UID): the
 *   run's executions, which its pod reports with that UID, take the name as they are recorded.
 *   Rows go with their job, and are pruned after a month (no run reports that late).
 * - `slot_backfills.requested_by`: who asked for a backfill; its runs' executions take the name.
 */
export const callersSchema = `
ALTER TABLE jobs ADD COLUMN changed_by text;
ALTER TABLE executions ADD COLUMN triggered_by text;
ALTER TABLE slot_backfills ADD COLUMN requested_by text;

CREATE TABLE run_triggers (
  run_uid       text NOT NULL,
  job_id        integer NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  triggered_by  text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_uid, job_id)
);
CREATE INDEX run_triggers_created_at ON run_triggers (created_at);
`;
