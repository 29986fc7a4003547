/**
 * The mailbox room: drafts, labels, messages, the links between messages and labels, and two
 * bitmap tables derived from them by triggers.
 *
 * Why bitmaps: counting or relating the messages that carry ALL of several labels means
 * intersecting sets of hundreds of thousands of messages; a join does that in hundreds of
 * milliseconds. A bitmap per label (one bit per message id, in chunks of 32768 ids, 4 KiB each)
 * turns it into a few thousand AND + popcount operations (`bit_and`, `bit_count`), a few
 * milliseconds at a million messages. The triggers keep the bitmaps exact within the same
 * statement, so every write path (the API, bulk SQL, cascades) stays consistent.
 *
 * Message m is bit (m & 32767), counted from the left, of chunk (m >> 15).
 *
 * String.raw keeps the backslash of '\Seen' as written.
 */
export const mailboxSchema = String.raw`
CREATE TABLE mail_drafts (
  id                   serial PRIMARY KEY,
  identity_id          integer NOT NULL,
  to_addresses         text,
  cc_addresses         text,
  bcc_addresses        text,
  subject              text,
  text_body            text,
  html_body            text,
  in_reply_to          text,
  "references"         text,
  original_message_id  integer,
  compose_mode         text NOT NULL DEFAULT 'new',
  -- First 200 code points of text_body, written by the service so that lists never read bodies.
  preview              text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
-- The list is per identity, newest update first: an index range scan in order, no sort.
CREATE INDEX mail_drafts_by_identity ON mail_drafts (identity_id, updated_at DESC, id DESC);

CREATE TABLE mail_labels (
  id          serial PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  color       text,
  icon        text,
  source      text NOT NULL DEFAULT 'user',
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE mail_messages (
  id               serial PRIMARY KEY,
  identity_id      integer NOT NULL,
  uid              bigint,
  message_id       text,
  in_reply_to      text,
  subject          text,
  from_address     text,
  from_name        text,
  to_addresses     text,
  date             timestamptz,
  flags            text[],
  size             integer,
  has_attachments  boolean NOT NULL DEFAULT false,
  text_body        text,
  preview          text,
  -- The spec's definition, in one place: unread when flags is null or lacks \Seen.
  unread           boolean GENERATED ALWAYS AS (NOT coalesce('\Seen' = ANY (flags), false)) STORED,
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE mail_message_labels (
  message_id  integer NOT NULL REFERENCES mail_messages (id) ON DELETE CASCADE,
  label_id    integer NOT NULL REFERENCES mail_labels (id) ON DELETE CASCADE,
  labeled_at  timestamptz NOT NULL DEFAULT now(),
  -- INCLUDE: "when did each listed label arrive on this message" is answered from the index alone.
  PRIMARY KEY (message_id, label_id) INCLUDE (labeled_at)
);
-- One label's messages newest label date first (and one branch of the multi-label merge).
CREATE INDEX mail_message_labels_by_label ON mail_message_labels (label_id, labeled_at DESC, message_id DESC);

-- STORAGE PLAIN: a 4 KiB chunk stays inline, uncompressed, one per page with room for HOT updates.
CREATE TABLE mail_label_bits (
  label_id  integer NOT NULL REFERENCES mail_labels (id) ON DELETE CASCADE,
  chunk     integer NOT NULL,
  bits      bit(32768) NOT NULL,
  PRIMARY KEY (label_id, chunk)
);
ALTER TABLE mail_label_bits ALTER COLUMN bits SET STORAGE PLAIN;

CREATE TABLE mail_unread_bits (
  chunk  integer PRIMARY KEY,
  bits   bit(32768) NOT NULL
);
ALTER TABLE mail_unread_bits ALTER COLUMN bits SET STORAGE PLAIN;

-- Statement-level triggers with transition tables: a bulk insert of millions of links costs one
-- grouped upsert per (label, chunk), not one per row. Rows are locked in (label, chunk) order so
-- that concurrent writers cannot deadlock on each other.
CREATE FUNCTION mail_label_bits_set() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO mail_label_bits AS b (label_id, chunk, bits)
  SELECT label_id, message_id >> 15, bit_or(set_bit(B'0'::bit(32768), message_id & 32767, 1))
  FROM changed_links GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (label_id, chunk) DO UPDATE SET bits = b.bits | excluded.bits;
  RETURN NULL;
END $$;

CREATE FUNCTION mail_label_bits_clear() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  cleared record;
BEGIN
  -- A deleted label takes its bit rows with it (cascade): skip the work of clearing them.
  FOR cleared IN
    SELECT r.label_id, r.message_id >> 15 AS chunk, bit_or(set_bit(B'0'::bit(32768), r.message_id & 32767, 1)) AS bits
    FROM changed_links r JOIN mail_labels l ON l.id = r.label_id
    GROUP BY 1, 2 ORDER BY 1, 2
  LOOP
    UPDATE mail_label_bits SET bits = bits & ~cleared.bits
    WHERE label_id = cleared.label_id AND chunk = cleared.chunk;
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER mail_message_labels_inserted AFTER INSERT ON mail_message_labels
  REFERENCING NEW TABLE AS changed_links FOR EACH STATEMENT EXECUTE FUNCTION mail_label_bits_set();
CREATE TRIGGER mail_message_labels_deleted AFTER DELETE ON mail_message_labels
  REFERENCING OLD TABLE AS changed_links FOR EACH STATEMENT EXECUTE FUNCTION mail_label_bits_clear();
-- The service never updates a link, but SQL by hand might: keys that left are cleared, then keys
-- that came are set (an update of labeled_at alone changes no bit).
CREATE FUNCTION mail_label_bits_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed record;
BEGIN
  FOR changed IN
    SELECT label_id, message_id >> 15 AS chunk, bit_or(set_bit(B'0'::bit(32768), message_id & 32767, 1)) AS bits
    FROM (SELECT message_id, label_id FROM old_links EXCEPT SELECT message_id, label_id FROM new_links) gone
    GROUP BY 1, 2 ORDER BY 1, 2
  LOOP
    UPDATE mail_label_bits SET bits = bits & ~changed.bits
    WHERE label_id = changed.label_id AND chunk = changed.chunk;
  END LOOP;
  INSERT INTO mail_label_bits AS b (label_id, chunk, bits)
  SELECT label_id, message_id >> 15, bit_or(set_bit(B'0'::bit(32768), message_id & 32767, 1))
  FROM (SELECT message_id, label_id FROM new_links EXCEPT SELECT message_id, label_id FROM old_links) came
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (label_id, chunk) DO UPDATE SET bits = b.bits | excluded.bits;
  RETURN NULL;
END $$;
CREATE TRIGGER mail_message_labels_updated AFTER UPDATE ON mail_message_labels
  REFERENCING OLD TABLE AS old_links NEW TABLE AS new_links
  FOR EACH STATEMENT EXECUTE FUNCTION mail_label_bits_update();

CREATE FUNCTION mail_unread_bits_set() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO mail_unread_bits AS u (chunk, bits)
  SELECT id >> 15, bit_or(set_bit(B'0'::bit(32768), id & 32767, 1))
  FROM changed_messages WHERE unread GROUP BY 1 ORDER BY 1
  ON CONFLICT (chunk) DO UPDATE SET bits = u.bits | excluded.bits;
  RETURN NULL;
END $$;

CREATE FUNCTION mail_unread_bits_clear() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  cleared record;
BEGIN
  FOR cleared IN
    SELECT id >> 15 AS chunk, bit_or(set_bit(B'0'::bit(32768), id & 32767, 1)) AS bits
    FROM changed_messages WHERE unread GROUP BY 1 ORDER BY 1
  LOOP
    UPDATE mail_unread_bits SET bits = bits & ~cleared.bits WHERE chunk = cleared.chunk;
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER mail_messages_inserted AFTER INSERT ON mail_messages
  REFERENCING NEW TABLE AS changed_messages FOR EACH STATEMENT EXECUTE FUNCTION mail_unread_bits_set();
CREATE TRIGGER mail_messages_deleted AFTER DELETE ON mail_messages
  REFERENCING OLD TABLE AS changed_messages FOR EACH STATEMENT EXECUTE FUNCTION mail_unread_bits_clear();
CREATE FUNCTION mail_unread_bits_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed record;
BEGIN
  -- Only messages whose unread state changed: clears first, then sets, each in chunk order.
  FOR changed IN
    SELECT id >> 15 AS chunk, bit_or(set_bit(B'0'::bit(32768), id & 32767, 1)) AS bits
    FROM (SELECT id FROM old_messages WHERE unread EXCEPT SELECT id FROM new_messages WHERE unread) gone
    GROUP BY 1 ORDER BY 1
  LOOP
    UPDATE mail_unread_bits SET bits = bits & ~changed.bits WHERE chunk = changed.chunk;
  END LOOP;
  INSERT INTO mail_unread_bits AS u (chunk, bits)
  SELECT id >> 15, bit_or(set_bit(B'0'::bit(32768), id & 32767, 1))
  FROM (SELECT id FROM new_messages WHERE unread EXCEPT SELECT id FROM old_messages WHERE unread) came
  GROUP BY 1 ORDER BY 1
  ON CONFLICT (chunk) DO UPDATE SET bits = u.bits | excluded.bits;
  RETURN NULL;
END $$;
CREATE TRIGGER mail_messages_updated AFTER UPDATE ON mail_messages
  REFERENCING OLD TABLE AS old_messages NEW TABLE AS new_messages
  FOR EACH STATEMENT EXECUTE FUNCTION mail_unread_bits_update();

CREATE FUNCTION mail_bits_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'mail_messages' THEN
    DELETE FROM mail_unread_bits;
  END IF;
  DELETE FROM mail_label_bits;
  RETURN NULL;
END $$;
CREATE TRIGGER mail_message_labels_truncated AFTER TRUNCATE ON mail_message_labels
  FOR EACH STATEMENT EXECUTE FUNCTION mail_bits_truncated();
CREATE TRIGGER mail_messages_truncated AFTER TRUNCATE ON mail_messages
  FOR EACH STATEMENT EXECUTE FUNCTION mail_bits_truncated();

-- The message ids whose bits are set in one chunk, 0-based from the left. Splitting the bit text
-- on '1' visits only the set bits: cheap for the sparse intersections it is used for. ROWS: the
-- default estimate (1000 per call) inflates plan costs past the JIT threshold for nothing.
CREATE FUNCTION mail_bit_positions(bits bit) RETURNS SETOF integer
LANGUAGE plpgsql IMMUTABLE STRICT ROWS 100 AS $$
DECLARE
  gap text;
  pos integer := -1;
  first boolean := true;
BEGIN
  FOREACH gap IN ARRAY string_to_array(bits::text, '1') LOOP
    IF NOT first THEN
      RETURN NEXT pos;
    END IF;
    first := false;
    pos := pos + octet_length(gap) + 1;
  END LOOP;
END $$;
`;
