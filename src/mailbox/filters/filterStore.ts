import type { Pool, PoolClient } from 'pg';
import type { Page } from '../shared/pagination';
import { MAX_INTEGER_ID } from '../shared/validation';
import {
  filterCountStatement,
  filterMessagesStatement,
  labelMessagesStatement,
  relatedLabelsStatement,
  type SqlStatement,
  type SummaryPageRow,
} from './filterQueries';

export interface RelatedLabel {
  id: number;
  name: string;
  color: string | null;
  icon: string | null;
  source: string;
  co_count: number;
}

export interface FilterCount {
  total: number;
  unread: number;
}

/**
 * An id beyond the integer range is a positive integer that no label can have: no message has ALL
 * the listed labels then, and the answer is known without asking the database.
 */
const includesImpossibleId = (ids: readonly number[]) => ids.some((id) => id > MAX_INTEGER_ID);

/** The pool or one of its clients: the statements run prepared, by name (see `SqlStatement`). */
type Connection = Pool | PoolClient;

async function rowsOf<R extends object>(db: Connection, statement: SqlStatement): Promise<R[]> {
  const { name, text, values } = statement;
  const { rows } = await db.query<R & Record<string, unknown>>({ name, text, values });
  return rows;
}

/** The page of messages having ALL `ids`, as the JSON array text the API sends. */
export async function filterMessagesJson(
  db: Connection,
  ids: readonly number[],
  page: Page,
  sparseCostRatio?: number,
): Promise<string> {
  if (includesImpossibleId(ids)) return '[]';
  const [row] = await rowsOf<SummaryPageRow>(db, filterMessagesStatement(ids, page, sparseCostRatio));
  return row!.body;
}

export async function countFiltered(db: Connection, ids: readonly number[]): Promise<FilterCount> {
  if (includesImpossibleId(ids)) return { total: 0, unread: 0 };
  const [count] = await rowsOf<FilterCount>(db, filterCountStatement(ids));
  return count!;
}

export async function relatedLabels(
  db: Connection,
  ids: readonly number[],
  limit: number,
): Promise<RelatedLabel[]> {
  if (includesImpossibleId(ids)) return [];
  return rowsOf(db, relatedLabelsStatement(ids, limit));
}

/** The page of one label's messages, as the JSON array text the API sends. */
export async function labelMessagesJson(db: Connection, labelId: number, page: Page): Promise<string> {
  const [row] = await rowsOf<SummaryPageRow>(db, labelMessagesStatement(labelId, page));
  return row!.body;
}
