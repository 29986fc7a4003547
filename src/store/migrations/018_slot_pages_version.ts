/**
 * A version of the slot ledger's pages (`GET /api/jobs/:id/slots`), so that a rendered page is
 * reused while nothing it shows has changed (caching/slotPages.ts). A page shows rows of `slots`
 * alone, and whether its job exists (404 otherwise): the version changes with every statement that
 * writes or deletes a slot (the judge, a run turning a slot late or naming its execution, a
 * backfill's runs, retention, a job's deletion cascading, SQL behind the service's back) and every
 * job created, deleted or renumbered. A statement that touches no slot (the run-arrival trigger of
 * migration 017 finding nothing to complete) leaves it alone, so recordings do not invalidate the
 * kept pages. Statement-level, bumping the connection's own row (migration 009): no write per slot.
 */
export const slotPagesVersionSchema = `
INSERT INTO list_versions (name, slot, version)
  SELECT 'slots', slot, 0 FROM generate_series(0, 15) AS slot;

CREATE FUNCTION bump_slot_pages_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Each expression is planned only when reached: a trigger never reads a transition table it lacks.
  IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
    IF EXISTS (SELECT 1 FROM new_rows) THEN
      PERFORM bump_version_slot('slots');
    END IF;
  ELSIF EXISTS (SELECT 1 FROM old_rows) THEN
    PERFORM bump_version_slot('slots');
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER slots_inserted_bump_pages_version
  AFTER INSERT ON slots REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_slot_pages_version();
CREATE TRIGGER slots_updated_bump_pages_version
  AFTER UPDATE ON slots REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_slot_pages_version();
CREATE TRIGGER slots_deleted_bump_pages_version
  AFTER DELETE ON slots REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_slot_pages_version();
CREATE TRIGGER slots_truncated_bump_pages_version
  AFTER TRUNCATE ON slots
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('slots');

-- A page of a job that does not exist is a 404, of one that does a list (maybe empty).
CREATE TRIGGER jobs_bump_slot_pages_version
  AFTER INSERT OR DELETE OR TRUNCATE ON jobs
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('slots');
CREATE TRIGGER jobs_renumbered_bump_slot_pages_version
  AFTER UPDATE OF id ON jobs
  FOR EACH STATEMENT EXECUTE FUNCTION bump_list_version('slots');
`;
