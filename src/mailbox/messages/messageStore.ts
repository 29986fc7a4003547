import type { Queryable } from '../../store/database';
import { previewOf } from '../shared/preview';
import { violatedForeignKey } from '../shared/postgresErrors';
import {
  type MessageSummary,
  type MessageSummaryRow,
  SUMMARY_COLUMNS,
  SUMMARY_FIELDS,
  toMessageSummary,
} from './messageSummary';

/** A message to store: its summary's fields but the ones the database sets, and its body. */
export type NewMessage = Omit<MessageSummary, 'id' | 'preview' | 'date'> & {
  identity_id: number;
  /** An ISO 8601 timestamp (JSON input) or a parsed Date (RFC 822 input). */
  date: string | Date | null;
  text_body: string | null;
};

interface MessageLabel {
  id: number;
  name: string;
  color: string | null;
  icon: string | null;
  source: string;
  labeled_at: Date;
}

export type Message = MessageSummary & {
  identity_id: number;
  text_body: string | null;
  created_at: Date;
  labels: MessageLabel[];
};

/** The columns a new message writes (`preview` is derived from the body). */
const COLUMNS: readonly (keyof NewMessage)[] = [
  'identity_id',
  ...SUMMARY_FIELDS.filter((field) => field !== 'id' && field !== 'preview'),
  'text_body',
];

export async function insertMessage(db: Queryable, message: NewMessage): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO mail_messages (${COLUMNS.join(', ')}, preview)
     VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}, $${COLUMNS.length + 1}) RETURNING id`,
    [...COLUMNS.map((column) => message[column]), previewOf(message.text_body)],
  );
  return rows[0]!.id;
}

/** A message with its body and its labels (in the order they were put on). */
export async function findMessage(db: Queryable, id: number): Promise<Message | null> {
  const { rows } = await db.query<MessageSummaryRow & { text_body: string | null; created_at: Date }>(
    `SELECT ${SUMMARY_COLUMNS}, m.text_body, m.created_at FROM mail_messages m WHERE m.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) return null;
  const labels = await db.query<MessageLabel>(
    `SELECT l.id, l.name, l.color, l.icon, l.source, ml.labeled_at
     FROM mail_message_labels ml JOIN mail_labels l ON l.id = ml.label_id
     WHERE ml.message_id = $1 ORDER BY ml.labeled_at, l.id`,
    [id],
  );
  const { id: messageId, ...summary } = toMessageSummary(row);
  return {
    id: messageId,
    identity_id: row.identity_id,
    ...summary,
    text_body: row.text_body,
    created_at: row.created_at,
    labels: labels.rows,
  };
}

export type LinkOutcome = 'done' | 'label_not_found' | 'message_not_found';

/**
 * Checks both ends and writes the link in one statement. A link that exists already keeps its
 * date (the first PUT's time). A label or message deleted by a concurrent request between the
 * check and the write surfaces as a foreign-key violation and reads as "not found" as well.
 */
async function changeLink(
  db: Queryable,
  write: string,
  labelId: number,
  messageId: number,
): Promise<LinkOutcome> {
  try {
    const { rows } = await db.query<{ label_found: boolean; message_found: boolean }>(
      `WITH label AS (SELECT id FROM mail_labels WHERE id = $1),
         message AS (SELECT id FROM mail_messages WHERE id = $2),
         written AS (${write})
       SELECT EXISTS (SELECT 1 FROM label) AS label_found, EXISTS (SELECT 1 FROM message) AS message_found`,
      [labelId, messageId],
    );
    const { label_found, message_found } = rows[0]!;
    if (!label_found) return 'label_not_found';
    return message_found ? 'done' : 'message_not_found';
  } catch (error) {
    const constraint = violatedForeignKey(error);
    if (constraint === null) throw error;
    // Postgres names them mail_message_labels_label_id_fkey and mail_message_labels_message_id_fkey.
    return constraint.endsWith('_label_id_fkey') ? 'label_not_found' : 'message_not_found';
  }
}

/** Puts a label on a message at the current time; a second PUT keeps the first date. */
export function labelMessage(db: Queryable, labelId: number, messageId: number): Promise<LinkOutcome> {
  return changeLink(
    db,
    `INSERT INTO mail_message_labels (message_id, label_id, labeled_at)
     SELECT message.id, label.id, now() FROM label, message
     ON CONFLICT (message_id, label_id) DO NOTHING`,
    labelId,
    messageId,
  );
}

/** Takes a label off a message; taking off a label that is not there is not an error. */
export function unlabelMessage(db: Queryable, labelId: number, messageId: number): Promise<LinkOutcome> {
  return changeLink(
    db,
    'DELETE FROM mail_message_labels WHERE label_id = $1 AND message_id = $2',
    labelId,
    messageId,
  );
}
