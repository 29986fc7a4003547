/**
 * Versions of the two big lists, jobs and executions, each bumped in the transaction of any write
 * that changes what the list shows (statement-level triggers, so also bulk SQL, cascades and other
 * replicas). Reading one row tells whether a list rendered earlier is still exactly what a fresh
 * read would give; the list itself is read only when it changed.
 */
export const listVersionsSchema = `
CREATE TABLE list_versions (
  name     text PRIMARY KEY,
  version  bigint NOT NULL DEFAULT 0
);
INSERT INTO list_versions (name) VALUES ('jobs'), ('executions');

CREATE FUNCTION bump_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE list_versions SET version = version + 1 WHERE name = TG_ARGV[0];
  RETURN NULL;
END
$$;

CREATE TRIGGER jobs_bump_list_version
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON jobs
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('jobs');

-- The executions list shows finished executions only: a statement that writes no finished row
-- (an attempt starting) leaves the version alone, so it adds no contention to starting runs.
-- Each expression is planned only when reached, so a trigger never reads a transition table it
-- lacks.
CREATE FUNCTION bump_execution_list_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched_finished boolean := false;
BEGIN
  IF TG_OP <> 'DELETE' THEN
    touched_finished := EXISTS (SELECT 1 FROM new_rows WHERE status <> 'running');
  END IF;
  IF NOT touched_finished AND TG_OP <> 'INSERT' THEN
    touched_finished := EXISTS (SELECT 1 FROM old_rows WHERE status <> 'running');
  END IF;
  IF touched_finished THEN
    UPDATE list_versions SET version = version + 1 WHERE name = 'executions';
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER executions_inserted_bump_list_version
  AFTER INSERT ON executions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_execution_list_version();
CREATE TRIGGER executions_updated_bump_list_version
  AFTER UPDATE ON executions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_execution_list_version();
CREATE TRIGGER executions_deleted_bump_list_version
  AFTER DELETE ON executions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_execution_list_version();
CREATE TRIGGER executions_truncated_bump_list_version
  AFTER TRUNCATE ON executions
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('executions');
`;
