import { conflict } from '../../domain/errors';
import { isUniqueViolation, type Queryable } from '../../store/database';
import { LABEL_NAME_ORDER } from './labelOrder';
import type { LabelCreate, LabelUpdate } from './labelSchemas';

export interface LabelListItem {
  id: number;
  name: string;
  color: string | null;
  icon: string | null;
  source: string;
  created_at: Date;
  message_count: number;
  unread_count: number;
}

const LABEL_EXISTS = 'Label already exists';

/**
 * Every label with its counts, read from the label bitmaps: one popcount per 4 KiB chunk instead
 * of a join over every link. The per-chunk counts are materialised first so that the grouping
 * works on narrow rows rather than sorting 4 KiB bitmaps.
 *
 * @public Exported for bench/scenarios/mailbox.ts, which times this very text from the build
 * (dist/); knip does not follow that require.
 */
export const LABEL_LIST_SQL = `
  WITH per_chunk AS MATERIALIZED (
    SELECT b.label_id, bit_count(b.bits) AS messages, coalesce(bit_count(b.bits & u.bits), 0) AS unread
    FROM mail_label_bits b LEFT JOIN mail_unread_bits u ON u.chunk = b.chunk
  ),
  counts AS (
    SELECT label_id, sum(messages)::int AS message_count, sum(unread)::int AS unread_count
    FROM per_chunk GROUP BY label_id
  )
  SELECT l.id, l.name, l.color, l.icon, l.source, l.created_at,
    coalesce(c.message_count, 0) AS message_count, coalesce(c.unread_count, 0) AS unread_count
  FROM mail_labels l LEFT JOIN counts c ON c.label_id = l.id
  ORDER BY ${LABEL_NAME_ORDER('l')}`;

export async function listLabels(db: Queryable): Promise<LabelListItem[]> {
  const { rows } = await db.query<LabelListItem>(LABEL_LIST_SQL);
  return rows;
}

export async function insertLabel(db: Queryable, label: LabelCreate): Promise<number> {
  try {
    const { rows } = await db.query<{ id: number }>(
      'INSERT INTO mail_labels (name, color, icon, source) VALUES ($1, $2, $3, $4) RETURNING id',
      [label.name, label.color ?? null, label.icon ?? null, label.source ?? 'user'],
    );
    return rows[0]!.id;
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(LABEL_EXISTS);
    throw error;
  }
}

/** Changes the fields present in `changes`; false when there is no such label. */
export async function updateLabel(db: Queryable, id: number, changes: LabelUpdate): Promise<boolean> {
  const fields = (['name', 'color', 'icon'] as const).filter((field) => changes[field] !== undefined);
  try {
    const { rowCount } = await db.query(
      `UPDATE mail_labels SET ${fields.map((field, i) => `${field} = $${i + 2}`).join(', ')} WHERE id = $1`,
      [id, ...fields.map((field) => changes[field])],
    );
    return (rowCount ?? 0) > 0;
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(LABEL_EXISTS);
    throw error;
  }
}

/** Deletes a label; its links to messages and its bitmaps go with it (ON DELETE CASCADE). */
export async function deleteLabel(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM mail_labels WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}
