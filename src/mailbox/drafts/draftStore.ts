import type { Queryable } from '../../store/database';
import { previewOf } from '../shared/preview';
import { isStoredId } from '../shared/validation';
import {
  DRAFT_FIELDS,
  type DraftCreate,
  type DraftField,
  type DraftUpdate,
  type DraftValues,
} from './draftSchemas';

export type Draft = { id: number; identity_id: number } & DraftValues & {
    created_at: Date;
    updated_at: Date;
  };

/** What the list shows of a draft: no bodies, a preview of the text body instead. */
const LIST_FIELDS = [
  'id',
  'identity_id',
  'to_addresses',
  'cc_addresses',
  'bcc_addresses',
  'subject',
  'preview',
  'compose_mode',
  'original_message_id',
  'created_at',
  'updated_at',
] as const;

export type DraftListItem = Pick<Draft & { preview: string | null }, (typeof LIST_FIELDS)[number]>;

// "references" is a reserved word in SQL: every column is quoted.
const column = (field: DraftField) => `"${field}"`;

const DRAFT_COLUMNS = `id, identity_id, ${DRAFT_FIELDS.map(column).join(', ')}, created_at, updated_at`;
const LIST_COLUMNS = LIST_FIELDS.join(', ');

/**
 * One identity's drafts, the most recently updated first (id breaks ties, newest first). An
 * identity that is no stored id (1.5, 2147483648) has none, known without asking the database.
 */
export async function listDrafts(db: Queryable, identityId: number): Promise<DraftListItem[]> {
  if (!isStoredId(identityId)) return [];
  const { rows } = await db.query<DraftListItem>(
    `SELECT ${LIST_COLUMNS} FROM mail_drafts WHERE identity_id = $1 ORDER BY updated_at DESC, id DESC`,
    [identityId],
  );
  return rows;
}

export async function findDraft(db: Queryable, id: number): Promise<Draft | null> {
  const { rows } = await db.query<Draft>(`SELECT ${DRAFT_COLUMNS} FROM mail_drafts WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

export async function insertDraft(db: Queryable, draft: DraftCreate): Promise<number> {
  const values = DRAFT_FIELDS.map((field) => draft[field] ?? null);
  values[DRAFT_FIELDS.indexOf('compose_mode')] = draft.compose_mode ?? 'new';
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO mail_drafts (identity_id, ${DRAFT_FIELDS.map(column).join(', ')}, preview)
     VALUES ($1, ${DRAFT_FIELDS.map((_, i) => `$${i + 2}`).join(', ')}, $${DRAFT_FIELDS.length + 2})
     RETURNING id`,
    [draft.identity_id, ...values, previewOf(draft.text_body)],
  );
  return rows[0]!.id;
}

/** Changes the fields present in `changes`; false when there is no such draft. */
export async function updateDraft(db: Queryable, id: number, changes: DraftUpdate): Promise<boolean> {
  const fields = DRAFT_FIELDS.filter((field) => changes[field] !== undefined);
  const assignments = fields.map((field, i) => `${column(field)} = $${i + 2}`);
  const values: unknown[] = [id, ...fields.map((field) => changes[field])];
  if (changes.text_body !== undefined) {
    values.push(previewOf(changes.text_body));
    assignments.push(`preview = $${values.length}`);
  }
  const { rowCount } = await db.query(
    `UPDATE mail_drafts SET ${assignments.join(', ')}, updated_at = now() WHERE id = $1`,
    values,
  );
  return (rowCount ?? 0) > 0;
}

export async function deleteDraft(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM mail_drafts WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}
