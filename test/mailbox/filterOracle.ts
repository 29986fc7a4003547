import type { Pool } from 'pg';
import { filterMessagesJson } from '../../src/mailbox/filters/filterStore';

/** Cost ratios that force the filter's plan: enumerate every member, or the threshold plan. */
export const ENUMERATE_ONLY = 0;
export const THRESHOLD_ONLY = 1e12;

/** What the filter must answer, computed the obvious way: the reference the plans are held to. */
export async function naiveFilter(
  pool: Pool,
  ids: number[],
  limit: number,
  offset: number,
): Promise<number[]> {
  const { rows } = await pool.query<{ id: number }>(
    `SELECT ml.message_id AS id FROM mail_message_labels ml WHERE ml.label_id = ANY ($1::int[])
     GROUP BY ml.message_id HAVING count(*) = cardinality($1::int[])
     ORDER BY max(ml.labeled_at) DESC, ml.message_id DESC LIMIT $2 OFFSET $3`,
    [ids, limit, offset],
  );
  return rows.map((row) => row.id);
}

/** The ids of the page the filter answers (its JSON text, parsed), under a forced plan or its own. */
export async function filteredIds(
  pool: Pool,
  ids: number[],
  page: { limit: number; offset: number },
  sparseCostRatio?: number,
): Promise<number[]> {
  const summaries = JSON.parse(await filterMessagesJson(pool, ids, page, sparseCostRatio)) as {
    id: number;
  }[];
  return summaries.map((summary) => summary.id);
}
