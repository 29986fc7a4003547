/**
 * A version of the jobs' definitions alone. The jobs list's version (migration 004) also changes
 * with every recorded execution, since the list shows each job's last run; the scheduler of the
 * local runtime watched it for edits made by other replicas, and so re-read and re-parsed every
 * job about once a second while runs were being recorded. This version changes only when a job is
 * created, deleted, or has a column other than its last run written.
 *
 * One row per slot of migration 009, each bumped by the connection's own slot.
 */
export const jobDefinitionsVersionSchema = `
INSERT INTO list_versions (name, slot, version)
  SELECT 'job_definitions', slot, 0 FROM generate_series(0, 15) AS slot;
CREATE TRIGGER jobs_bump_definitions_version
  AFTER INSERT OR DELETE OR TRUNCATE ON jobs
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('job_definitions');
CREATE TRIGGER jobs_definitions_updated_bump_version
  AFTER UPDATE OF id, name, schedule, command, timeout_s, retry, description, tags, timezone, enabled,
    source, created_at, updated_at, resource_namespace, resource_name, resource_uid ON jobs
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('job_definitions');
`;
