import { LABEL_NAME_ORDER } from '../labels/labelOrder';
import { SUMMARY_COLUMNS } from '../messages/messageSummary';
import type { Page } from '../shared/pagination';

/**
 * The SQL of the label filters, one statement per endpoint, built here so that the bench runs the
 * very text the service runs. Every statement takes the label ids as `$1::int[]`: distinct, at
 * least one, each within the integer range.
 *
 * Layout (see migration 002): message m is bit (m & 32767) of chunk (m >> 15) of a label's bitmap.
 */
export interface SqlStatement {
  text: string;
  values: unknown[];
}

/** Message ids per bitmap chunk, as a shift; must match migration 002 (bit(32768), m >> 15). */
export const CHUNK_SHIFT = 15;
export const CHUNK_BITS = 1 << CHUNK_SHIFT;

/**
 * The merge plan reads one index range per label; above this many labels (a request that no
 * interface would make) the filter always enumerates the intersection instead.
 */
export const MAX_MERGED_LABELS = 16;

/**
 * Measured cost of enumerating one member of the intersection (its bit position, then one index
 * probe for its label dates), in units of the cost of streaming one link through the merge plan
 * (about 2.2 µs against 0.1 µs on PostgreSQL 15, measured over the bench data set).
 */
export const SPARSE_COST_RATIO = 25;

/**
 * Chunks where every listed label has bits, ANDed: the bitmap of the messages having ALL labels
 * (`members` bits per chunk). `links` counts the set bits of every listed label per chunk, for the
 * plan choice of the filter.
 */
const COMMON_CHUNKS = `
  chunks AS MATERIALIZED (
    SELECT chunk, bit_and(bits) AS bits, count(*) = cardinality($1::int[]) AS complete,
      sum(bit_count(bits))::float8 AS links
    FROM mail_label_bits WHERE label_id = ANY ($1::int[]) GROUP BY chunk
  ),
  common AS MATERIALIZED (
    SELECT chunk, bits, members FROM (
      SELECT chunk, bits, bit_count(bits)::float8 AS members FROM chunks WHERE complete) counted
    WHERE members > 0
  )`;

/** One label's messages, newest label date first: an index range scan, read as far as the page. */
export function labelMessagesStatement(labelId: number, page: Page): SqlStatement {
  return {
    text: `SELECT ${SUMMARY_COLUMNS}
      FROM (SELECT message_id, labeled_at FROM mail_message_labels WHERE label_id = $1
            ORDER BY labeled_at DESC, message_id DESC LIMIT $2 OFFSET $3) p
      JOIN mail_messages m ON m.id = p.message_id
      ORDER BY p.labeled_at DESC, p.message_id DESC`,
    values: [labelId, page.limit, page.offset],
  };
}

/**
 * Messages having ALL listed labels, ordered by the latest date at which one of the listed labels
 * was put on them, newest first, then by message id, highest first. With one label this is the
 * label's own list. With more, one statement holds two plans and runs one of them, chosen from the
 * bitmaps (a one-time filter on an InitPlan; the other branch is never executed):
 *
 *  - sparse: enumerate the intersection from its bitmap and read each member's label dates from
 *    the primary key index (cost ~ members);
 *  - dense: merge the listed labels' index ranges in date order (Merge Append), keep a link when
 *    its message is in the intersection bitmap and this link is the message's latest listed one,
 *    stop at the page (cost ~ links streamed until the page is full).
 *
 * Sparse wins when members × SPARSE_COST_RATIO ≤ the estimated links streamed (see `walk`).
 */
export function filterMessagesStatement(
  ids: readonly number[],
  page: Page,
  sparseCostRatio = SPARSE_COST_RATIO,
): SqlStatement {
  if (ids.length === 1) return labelMessagesStatement(ids[0]!, page);
  const merge = ids.length <= MAX_MERGED_LABELS;
  const sparse = `
    sparse AS (
      SELECT p.message_id,
        (SELECT max(x.labeled_at) FROM mail_message_labels x
         WHERE x.message_id = p.message_id AND x.label_id = ANY ($1::int[])) AS latest
      FROM (SELECT c.chunk * ${CHUNK_BITS} + pos AS message_id
            FROM common c CROSS JOIN LATERAL mail_bit_positions(c.bits) pos) p
      ${merge ? 'WHERE (SELECT sparse FROM plan)' : ''}
      ORDER BY latest DESC, p.message_id DESC LIMIT $2 OFFSET $3
    )`;
  // OFFSET 0 fences each range: the filters above cannot be pushed into it, so it is planned on its
  // own as what it is, an ordered index range. With the filters inside, the planner may rather
  // sort the whole label (it does when the visibility map is not yet set after a bulk import).
  const ranges = ids
    .map(
      (_, i) => `(SELECT message_id, label_id, labeled_at FROM mail_message_labels
         WHERE label_id = ($1::int[])[${i + 1}] ORDER BY labeled_at DESC, message_id DESC OFFSET 0)`,
    )
    .join('\n        UNION ALL ');
  const dense = `
    -- The merge streams links newest first until the page is full. Links mostly arrive with their
    -- message, so walking the chunks from the highest message ids down estimates how many links
    -- it streams before the (limit + offset)-th member: all links of the chunks above that
    -- member's chunk and a share of its own. This sees members crowded in old mail (a label of a
    -- past project), which an even spread would not.
    walk AS (
      SELECT c.links, coalesce(m.members, 0) AS members,
        sum(coalesce(m.members, 0)) OVER (ORDER BY c.chunk DESC ROWS UNBOUNDED PRECEDING) AS through
      FROM chunks c LEFT JOIN common m ON m.chunk = c.chunk
    ),
    plan AS MATERIALIZED (
      SELECT
        coalesce((SELECT sum(members) FROM common), 0) * $4::float8 <= coalesce((
          SELECT sum(CASE WHEN through <= $2::int + $3::int THEN links
                          ELSE links * ($2::int + $3::int - (through - members)) / members END)
          FROM walk WHERE through - members < $2::int + $3::int), 0) AS sparse,
        (SELECT min(chunk) FROM common) AS first_chunk,
        (SELECT array_agg(c.bits ORDER BY g.chunk)
         FROM generate_series((SELECT min(chunk) FROM common), (SELECT max(chunk) FROM common)) g(chunk)
         LEFT JOIN common c ON c.chunk = g.chunk) AS members
    ),
    dense AS (
      SELECT c.message_id, c.labeled_at AS latest
      FROM (${ranges}) c
      WHERE NOT (SELECT sparse FROM plan)
        -- The estimates matter for the LIMIT: a boolean function is rated at 1/3 of the rows, an
        -- equality at 1/200, and at 1/200 the planner expects to read the labels to the end.
        AND get_bit(
          (SELECT members FROM plan)[(c.message_id >> ${CHUNK_SHIFT}) - (SELECT first_chunk FROM plan) + 1],
          c.message_id & ${CHUNK_BITS - 1})::boolean
        -- A message comes once per listed label: keep its latest link (lowest label id on a tie).
        -- CASE keeps this a probe per member; as NOT EXISTS it may become an anti-join over all links.
        AND CASE WHEN EXISTS (
          SELECT 1 FROM mail_message_labels y
          WHERE y.message_id = c.message_id AND y.label_id = ANY ($1::int[])
            AND (y.labeled_at > c.labeled_at OR (y.labeled_at = c.labeled_at AND y.label_id < c.label_id))
        ) THEN false ELSE true END
      ORDER BY c.labeled_at DESC, c.message_id DESC LIMIT $2 OFFSET $3
    ),`;
  return {
    text: `WITH ${COMMON_CHUNKS},
      ${merge ? dense : ''}
      ${sparse},
      page AS (
        SELECT message_id, latest FROM sparse
        ${merge ? 'UNION ALL SELECT message_id, latest FROM dense' : ''}
      )
      SELECT ${SUMMARY_COLUMNS}
      FROM page JOIN mail_messages m ON m.id = page.message_id
      ORDER BY page.latest DESC, page.message_id DESC`,
    values: merge ? [ids, page.limit, page.offset, sparseCostRatio] : [ids, page.limit, page.offset],
  };
}

/** `{ total, unread }` over the messages having ALL listed labels: popcounts of ANDed chunks. */
export function filterCountStatement(ids: readonly number[]): SqlStatement {
  return {
    text: `WITH ${COMMON_CHUNKS}
      SELECT coalesce(sum(c.members), 0)::int AS total,
        coalesce(sum(bit_count(c.bits & u.bits)), 0)::int AS unread
      FROM common c LEFT JOIN mail_unread_bits u ON u.chunk = c.chunk`,
    values: [ids],
  };
}

/**
 * Labels not listed that occur on messages having ALL listed labels, by the number of such
 * messages (co_count) descending, then by name: one AND + popcount per chunk of every other label.
 * `shared` is materialised so that the grouping works on counts, not on 4 KiB bitmaps.
 */
export function relatedLabelsStatement(ids: readonly number[], limit: number): SqlStatement {
  return {
    text: `WITH ${COMMON_CHUNKS},
      shared AS MATERIALIZED (
        SELECT b.label_id, bit_count(b.bits & c.bits) AS messages
        FROM common c JOIN mail_label_bits b ON b.chunk = c.chunk
        WHERE b.label_id <> ALL ($1::int[])
      ),
      ranked AS (
        SELECT label_id, sum(messages)::int AS co_count FROM shared GROUP BY label_id HAVING sum(messages) > 0
      )
      SELECT l.id, l.name, l.color, l.icon, l.source, r.co_count
      FROM ranked r JOIN mail_labels l ON l.id = r.label_id
      ORDER BY r.co_count DESC, ${LABEL_NAME_ORDER('l')}
      LIMIT $2`,
    values: [ids, limit],
  };
}
