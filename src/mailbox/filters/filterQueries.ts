import { LABEL_NAME_ORDER } from '../labels/labelOrder';
import { summariesJsonArray } from '../messages/messageSummary';
import type { Page } from '../shared/pagination';

/**
 * The SQL of the label filters, one statement per endpoint, built here so that the bench runs the
 * very text the service runs. Every statement takes the label ids as `$1::int[]`: distinct, at
 * least one, each within the integer range.
 *
 * Layout (see migration 002): message m is bit (m & 32767) of chunk (m >> 15) of a label's bitmap.
 */
export interface SqlStatement {
  /**
   * The name the service prepares the statement under: each connection parses the text once, and
   * the service's connections for the filters plan it once too (see `Database.genericPlanPool`),
   * where parsing and planning cost a tenth to a half of running it. One name, one text, whatever
   * the values: pg refuses a name with another text.
   */
  name: string;
  text: string;
  values: unknown[];
}

/** Message ids per bitmap chunk, as a shift; must match migration 002 (bit(32768), m >> 15). */
const CHUNK_SHIFT = 15;
const CHUNK_BITS = 1 << CHUNK_SHIFT;

/**
 * Message ids per block when looking for the newest members: a chunk is split into blocks so that
 * only the few blocks holding them are enumerated, not the whole chunk.
 */
const BLOCK_BITS = 1024;

/**
 * The plan choice of the filter (see `filterMessagesStatement`): enumerate when
 * (members - N) × SPARSE_COST_RATIO ≤ the links of the listed labels in the chunk of the N-th
 * newest member. Enumerating costs about 6 µs per member (its bit position, one probe of the
 * primary key) and 0.1 ms per chunk (the text of its bitmap); the threshold plan reads only the
 * part of that chunk's links dated after its threshold, plus a fixed part. The two meet at about
 * 200 on the bench data set (PostgreSQL 15, every pair and triple of the swept labels): only
 * intersections barely larger than the page are enumerated.
 */
const SPARSE_COST_RATIO = 200;

/**
 * Chunks where every listed label has bits, ANDed: the bitmap of the messages having ALL labels
 * (`members` bits per chunk).
 */
const COMMON_CHUNKS = `
  chunks AS MATERIALIZED (
    SELECT chunk, bit_and(bits) AS bits, count(*) = cardinality($1::int[]) AS complete
    FROM mail_label_bits WHERE label_id = ANY ($1::int[]) GROUP BY chunk
  ),
  common AS MATERIALIZED (
    SELECT chunk, bits, members FROM (
      SELECT chunk, bits, bit_count(bits) AS members FROM chunks WHERE complete) counted
    WHERE members > 0
  )`;

/**
 * The statements of message lists answer one row, `body`: the page as the JSON array the API sends
 * (see `summariesJsonArray`).
 */
export interface SummaryPageRow {
  body: string;
}

/**
 * One label's messages, newest label date first: an index range scan, read as far as the page.
 * `identityId`: with `identity_id` in each summary, as the all-labels filter answers them.
 */
export function labelMessagesStatement(
  labelId: number,
  page: Page,
  options: { identityId: boolean } = { identityId: false },
): SqlStatement {
  return {
    name: options.identityId ? 'mailbox_label_messages_with_identity' : 'mailbox_label_messages',
    text: `SELECT ${summariesJsonArray('p.labeled_at DESC, p.message_id DESC', options)} AS body
      FROM (SELECT message_id, labeled_at FROM mail_message_labels WHERE label_id = $1
            ORDER BY labeled_at DESC, message_id DESC LIMIT $2 OFFSET $3) p
      JOIN mail_messages m ON m.id = p.message_id`,
    values: [labelId, page.limit, page.offset],
  };
}

/**
 * Messages having ALL listed labels (summaries with `identity_id`), ordered by the latest date at
 * which one of the listed labels was put on them, newest first, then by message id, highest first.
 * With one label this is the label's own list. With more, one statement holds two plans and runs
 * one of them, chosen from the bitmaps (one-time filters on the one-row `plan`; the other branch
 * reads nothing). Let N be limit + offset:
 *
 *  - enumerate: every member from the intersection bitmap, its latest date from one probe of the
 *    primary key (cost ~ members);
 *  - threshold: the N members with the highest ids (from the bitmap, block by block) and their
 *    latest dates. At least N members reach the lowest of these dates, T, so the page is among
 *    these N and the other members with a listed link dated after T; those have lower ids and
 *    are read from the (label, chunk, date) index of migration 005, chunk by chunk where members
 *    are, from each label's newest link in the chunk down to T. Labels mostly arrive with their
 *    message, so T is close to the date of the N-th newest member and few links are that late;
 *    members crowded in old mail cost nothing for the chunks above them, and a label put on an
 *    old message months later is read all the same: the answer stays exact.
 *
 * Enumerate runs when (members - N) × SPARSE_COST_RATIO ≤ the links of the chunk where the N-th
 * newest member lies, so always when the intersection has at most N members.
 */
export function filterMessagesStatement(
  ids: readonly number[],
  page: Page,
  sparseCostRatio = SPARSE_COST_RATIO,
): SqlStatement {
  if (ids.length === 1) return labelMessagesStatement(ids[0]!, page, { identityId: true });
  // bigint: offset goes up to the integer maximum, and limit + offset beyond it.
  const wanted = '($2::bigint + $3::bigint)';
  const blocksPerChunk = CHUNK_BITS / BLOCK_BITS;
  const latestOf = (messageId: string) => `(SELECT max(x.labeled_at) FROM mail_message_labels x
           WHERE x.message_id = ${messageId} AND x.label_id = ANY ($1::int[]))`;
  return {
    name: 'mailbox_filter',
    text: `WITH ${COMMON_CHUNKS},
      -- Per chunk with members, from the highest ids down: the members in the chunks above it.
      tally AS MATERIALIZED (
        SELECT chunk, members,
          sum(members) OVER (ORDER BY chunk DESC ROWS UNBOUNDED PRECEDING) - members AS above
        FROM common
      ),
      plan AS MATERIALIZED (
        SELECT (coalesce((SELECT sum(members) FROM tally), 0) - ${wanted}) * $4::float8 <= coalesce((
          SELECT sum(bit_count(b.bits)) FROM mail_label_bits b
          WHERE b.label_id = ANY ($1::int[]) AND b.chunk = (
            SELECT chunk FROM tally WHERE above < ${wanted} AND above + members >= ${wanted})), 0)
          AS enumerate
      ),
      -- Threshold plan: the blocks of the chunks that hold the N newest members, as far as needed.
      blocks AS (
        SELECT chunk, block, bits,
          sum(members) OVER (ORDER BY chunk DESC, block DESC ROWS UNBOUNDED PRECEDING) - members AS above
        FROM (SELECT c.chunk, b.block, s.bits, bit_count(s.bits) AS members
              FROM plan, common c JOIN tally t ON t.chunk = c.chunk AND t.above < ${wanted}
              CROSS JOIN generate_series(${blocksPerChunk - 1}, 0, -1) b(block)
              CROSS JOIN LATERAL (
                SELECT substring(c.bits FROM b.block * ${BLOCK_BITS} + 1 FOR ${BLOCK_BITS}) AS bits) s
              WHERE NOT plan.enumerate) counted
        WHERE members > 0
      ),
      -- Every member (enumerate) or the N newest (threshold), with its latest listed label date.
      candidates AS MATERIALIZED (
        SELECT p.message_id, ${latestOf('p.message_id')} AS latest
        FROM (
          SELECT c.chunk * ${CHUNK_BITS} + pos AS message_id
          FROM plan, common c CROSS JOIN LATERAL mail_bit_positions(c.bits) pos
          WHERE plan.enumerate
          UNION ALL
          (SELECT b.chunk * ${CHUNK_BITS} + b.block * ${BLOCK_BITS} + pos
           FROM blocks b CROSS JOIN LATERAL mail_bit_positions(b.bits) pos
           WHERE b.above < ${wanted}
           ORDER BY 1 DESC LIMIT ${wanted})) p
      ),
      -- T (since) and the lowest id of the N newest (below); nulls when the plan is enumerate.
      threshold AS MATERIALIZED (
        SELECT min(latest) AS since, min(message_id) AS below
        FROM plan, candidates WHERE NOT plan.enumerate
      ),
      -- The other members whose latest date is after T, each with its latest link among these. (One
      -- whose latest date is T has a lower id than each of the N newest: it ranks after all of them.)
      later AS (
        SELECT l.message_id, max(l.labeled_at) AS latest
        FROM threshold t, common c
        CROSS JOIN LATERAL (
          SELECT x.message_id, x.labeled_at FROM mail_message_labels x
          WHERE x.label_id = ANY ($1::int[]) AND (x.message_id >> ${CHUNK_SHIFT}) = c.chunk
            AND x.labeled_at > t.since AND x.message_id < t.below) l
        WHERE c.chunk <= t.below >> ${CHUNK_SHIFT} AND get_bit(c.bits, l.message_id & ${CHUNK_BITS - 1}) = 1
        GROUP BY l.message_id
      ),
      page AS (
        SELECT message_id, latest FROM candidates
        UNION ALL
        SELECT message_id, latest FROM later
        ORDER BY latest DESC, message_id DESC LIMIT $2 OFFSET $3
      )
      SELECT ${summariesJsonArray('page.latest DESC, page.message_id DESC', { identityId: true })} AS body
      FROM page JOIN mail_messages m ON m.id = page.message_id`,
    values: [ids, page.limit, page.offset, sparseCostRatio],
  };
}

/** `{ total, unread }` over the messages having ALL listed labels: popcounts of ANDed chunks. */
export function filterCountStatement(ids: readonly number[]): SqlStatement {
  return {
    name: 'mailbox_filter_count',
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
    name: 'mailbox_related_labels',
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
