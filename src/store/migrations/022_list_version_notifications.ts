/**
 * Every bump of a list's version also notifies `crondeck_list_versions`, with the list's name as
 * the payload, so that a service that listens knows a list changed without reading its version at
 * every request (store/listChangeFeed.ts). `bump_version_slot` is the one writer of
 * `list_versions`, whichever trigger calls it. A notification is sent when its transaction
 * commits, once per list however many times the transaction bumped it, and reaches every session
 * listening at that moment before the committing session is answered (PostgreSQL signals them
 * during the commit).
 */
export const listVersionNotificationsSchema = `
CREATE OR REPLACE FUNCTION bump_version_slot(list text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE list_versions SET version = version + 1 WHERE name = list AND slot = hot_slot();
  PERFORM pg_notify('crondeck_list_versions', list);
END
$$;
`;
