/**
 * Two functions that every recording and every creation calls were planned anew at each call.
 *
 * - `bump_version_slot` (migration 009) was a SQL-language function. PostgreSQL 15 inlines such a
 *   function only where it is an expression of a SELECT; called as a statement (`PERFORM` in the
 *   triggers of migrations 004, 006, 009 and 018), it parses and plans its body at every call, and
 *   keeps no plan: about 90 µs of the server's CPU per list version bumped, against 15 µs for the
 *   UPDATE itself. A recording bumps two lists, a creation three. In PL/pgSQL the UPDATE's plan is
 *   kept for the connection's life.
 * - `claim_job_cluster_runs` (migration 020) ran its lookups through `EXECUTE`, so that no plan
 *   kept from a young table's statistics could read all of `cluster_runs` for every batch. The
 *   planning cost about 150 µs a call. The lookups are planned once per connection again, with
 *   sequential scans ruled out for the function's own statements (`SET enable_seqscan = off`,
 *   restored when it returns): each uid's rows are then read through the primary key whatever the
 *   table's statistics say, which is what migration 020 wanted, without planning at every call.
 *
 * Measured with 16 pod reports in flight on a fresh database (docs/benchmarks/where-the-time-goes.md):
 * the server's CPU per recording fell from about 320 to 260 µs.
 */
export const plansKeptPerConnectionSchema = `
CREATE OR REPLACE FUNCTION bump_version_slot(list text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE list_versions SET version = version + 1 WHERE name = list AND slot = hot_slot();
END
$$;

CREATE OR REPLACE FUNCTION claim_job_cluster_runs(uids text[])
  RETURNS TABLE (run_uid text, job_id integer, closed_by text, seen_by_controller boolean,
                 reason text, reason_message text, closing_key text)
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off
AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('cluster-run:' || uid)) FROM unnest(uids) AS uid;
  RETURN QUERY
    SELECT c.run_uid, c.job_id, c.closed_by, c.seen_by_controller, c.reason, c.reason_message, c.closing_key
      FROM unnest(uids) AS u(uid)
      CROSS JOIN LATERAL (SELECT * FROM cluster_runs r WHERE r.run_uid = u.uid OFFSET 0) c;
END
$$;
`;
