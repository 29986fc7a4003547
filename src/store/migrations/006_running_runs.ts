/**
 * Runs in progress: where their processes are, and lists that show them.
 *
 * - The process group of a running attempt, with what tells it apart from a later group of the
 *   same id (its leader's start time in clock ticks since boot, and the boot id), so that a start
 *   after a crash can end what the crashed service left running, and nothing else.
 * - The executions list shows running attempts too: any write that changes a listed field bumps
 *   its version (recording a process group does not).
 * - The job list shows each job's run in progress: an attempt starting or ending bumps the jobs
 *   list's version.
 */
export const runningRunsSchema = `
ALTER TABLE executions
  ADD COLUMN process_group integer,
  ADD COLUMN process_start_ticks bigint,
  ADD COLUMN process_boot_id text;

CREATE OR REPLACE FUNCTION bump_execution_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched boolean;
BEGIN
  IF TG_OP = 'INSERT' THEN
    touched := EXISTS (SELECT 1 FROM new_rows);
  ELSIF TG_OP = 'DELETE' THEN
    touched := EXISTS (SELECT 1 FROM old_rows);
  ELSE
    touched := EXISTS (
      SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.job_id, o.job_name, o.status, o.started_at, o.finished_at, o.duration_ms, o.exit_code, o.attempt)
        IS DISTINCT FROM (n.job_id, n.job_name, n.status, n.started_at, n.finished_at, n.duration_ms, n.exit_code, n.attempt));
  END IF;
  IF touched THEN
    UPDATE list_versions SET version = version + 1 WHERE name = 'executions';
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION bump_jobs_list_version_for_runs() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched boolean;
BEGIN
  IF TG_OP = 'INSERT' THEN
    touched := EXISTS (SELECT 1 FROM new_rows WHERE status = 'running');
  ELSIF TG_OP = 'DELETE' THEN
    touched := EXISTS (SELECT 1 FROM old_rows WHERE status = 'running');
  ELSE
    touched := EXISTS (
      SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (o.status = 'running' OR n.status = 'running')
        AND (o.status, o.job_id, o.started_at, o.attempt) IS DISTINCT FROM (n.status, n.job_id, n.started_at, n.attempt));
  END IF;
  IF touched THEN
    UPDATE list_versions SET version = version + 1 WHERE name = 'jobs';
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER executions_inserted_bump_jobs_list_version
  AFTER INSERT ON executions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_jobs_list_version_for_runs();
CREATE TRIGGER executions_updated_bump_jobs_list_version
  AFTER UPDATE ON executions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_jobs_list_version_for_runs();
CREATE TRIGGER executions_deleted_bump_jobs_list_version
  AFTER DELETE ON executions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_jobs_list_version_for_runs();
CREATE TRIGGER executions_truncated_bump_jobs_list_version
  AFTER TRUNCATE ON executions
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('jobs');
`;
