/**
 * Kubernetes mode: which ScheduledJob a job row mirrors, and which cluster runs are closed.
 */
export const kubernetesSchema = `
-- The ScheduledJob a row mirrors (null for jobs of the API or a config file in local mode). The uid
-- tells a resource from a later one of the same name.
ALTER TABLE jobs ADD COLUMN resource_namespace text;
ALTER TABLE jobs ADD COLUMN resource_name text;
ALTER TABLE jobs ADD COLUMN resource_uid text;
CREATE UNIQUE INDEX jobs_resource ON jobs (resource_namespace, resource_name);

-- One row per Kubernetes Job (one run) once its outcome is recorded: by the pod's final report, or
-- by the controller when the Job failed without one (pod never started, deadline, eviction). The
-- primary key makes the two exclusive, so a report that arrives after the controller gave up on
-- the run is refused, and the controller never records a run that reported.
CREATE TABLE cluster_runs (
  run_uid     text PRIMARY KEY,
  job_id      integer NOT NULL,
  closed_by   text NOT NULL CHECK (closed_by IN ('report', 'controller')),
  closed_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cluster_runs_closed_at ON cluster_runs (closed_at);
`;
