import type { Pool, PoolClient } from 'pg';
import { prepared } from './database';

/**
 * The lists whose versions migration 004 keeps, the scheduler switch (migration 007), the jobs'
 * definitions without their last runs (migration 010) and the slot ledger's pages (migration 018).
 */
export type VersionedList = 'jobs' | 'executions' | 'scheduler' | 'job_definitions' | 'slots';

/**
 * A list's version is the sum of its slots (migration 009: each write bumps the slot of its
 * connection). Slots only grow, so the sum changes with every write.
 */
const VERSION_OF = (list: string) =>
  `SELECT sum(version)::bigint AS version FROM list_versions WHERE name = ${list}`;

/**
 * The current version of a list: any committed write that changes what the list shows changes it,
 * so two equal versions mean the same list. A primary-key range read, prepared: it runs on every
 * list request, and planning would cost as much as running it.
 */
export async function readListVersion(db: Pool | PoolClient, list: VersionedList): Promise<string> {
  const { rows } = await db.query<{ version: string }>(
    prepared('list_version_sum', VERSION_OF('$1'), [list]),
  );
  return rows[0]!.version;
}

/** One mark of the versions of `lists`: it changes whenever any of them does, whoever wrote. */
export async function readVersionsMark(db: Pool | PoolClient, lists: VersionedList[]): Promise<string> {
  const { rows } = await db.query<{ mark: string }>(
    `SELECT string_agg(name || ':' || version, ',' ORDER BY name) AS mark
       FROM (SELECT name, sum(version) AS version FROM list_versions
              WHERE name = ANY($1::text[]) GROUP BY name) versions`,
    [lists],
  );
  return rows[0]?.mark ?? '';
}

/**
 * Wraps a query so that it also returns the list's version, read in the same statement and so in
 * the same snapshot as the rows: `{ version, rows }`. With no rows, the one row that comes back
 * carries the version and nulls, and is left out.
 */
export function withListVersion(list: VersionedList, query: string): string {
  return `SELECT v.version AS list_version, q.*
    FROM (${VERSION_OF(`'${list}'`)}) v LEFT JOIN LATERAL (${query}) q ON true`;
}

export function splitListVersion<R extends { list_version: string }>(
  rows: R[],
  isEmptyRow: (row: R) => boolean,
): { version: string; rows: R[] } {
  const first = rows[0]!;
  return { version: first.list_version, rows: rows.length === 1 && isEmptyRow(first) ? [] : rows };
}
