/**
 * What a pod's report names is its own job's, and durations hold any run.
 *
 * - Report keys (`pod:<podUid>:<attempt>`, `run:<uid>:unreported`, `skip:...`) were unique across
 *   all jobs: a report sent with one job's token could take the key of another job's pod, whose own
 *   report was then answered as a duplicate and never stored. A key is now unique within its job.
 * - Claims on a cluster run (one Kubernetes Job) were per run: one job's report could close another
 *   job's run, and the controller then never recorded it. A row is now a job's claim on a run, and
 *   `seen_by_controller` says that the controller saw the Kubernetes Job carry that job's id
 *   (`crondeck.dev/job-id`), which only the controller writes. A run seen as one job's refuses the
 *   reports of every other. A row may now be open (`closed_by` null): the run was only seen.
 * - `duration_ms` was an integer, at most 24.8 days: a longer run (no timeout) could not be
 *   recorded.
 */
export const jobScopedReportsSchema = `
ALTER TABLE executions DROP CONSTRAINT executions_report_key_key;
ALTER TABLE executions ADD CONSTRAINT executions_job_report_key UNIQUE (job_id, report_key);

ALTER TABLE cluster_runs DROP CONSTRAINT cluster_runs_pkey;
ALTER TABLE cluster_runs ADD PRIMARY KEY (run_uid, job_id);
ALTER TABLE cluster_runs ALTER COLUMN closed_by DROP NOT NULL;
ALTER TABLE cluster_runs ALTER COLUMN closed_at DROP NOT NULL;
ALTER TABLE cluster_runs ADD COLUMN seen_by_controller boolean NOT NULL DEFAULT false;
UPDATE cluster_runs SET seen_by_controller = true WHERE closed_by = 'controller';

-- As claim_cluster_runs (migration 011), with every job's claim on each run.
DROP FUNCTION claim_cluster_runs(text[]);
CREATE FUNCTION claim_job_cluster_runs(uids text[])
  RETURNS TABLE (run_uid text, job_id integer, closed_by text, seen_by_controller boolean)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('cluster-run:' || uid)) FROM unnest(uids) AS uid;
  RETURN QUERY
    SELECT c.run_uid, c.job_id, c.closed_by, c.seen_by_controller
      FROM unnest(uids) AS u(uid) JOIN cluster_runs c ON c.run_uid = u.uid;
END
$$;

ALTER TABLE executions ALTER COLUMN duration_ms TYPE bigint;
`;
