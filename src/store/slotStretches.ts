import type { SlotOutcome } from '../domain/slots';
import { newestFireTimes } from '../domain/fireTimeCounts';
import { prepared, type Queryable } from './database';
import type { SlotRange } from './slots';

/** Slots judged together after a long gap, kept as one row (migration 024). */
export interface JudgedStretch {
  jobId: number;
  /** The schedule they are fire times of, as the judge read it: canonical fields and zone. */
  fields: string;
  timeZone: string;
  first: Date;
  last: Date;
  count: number;
  outcome: SlotOutcome;
  reason: string | null;
}

/**
 * Writes stretches, each once (one written before is left as it was), and counts their slots in
 * the durable counter behind `service_slots_total`, each slot as one: one statement. Answers those
 * it wrote.
 */
export async function insertJudgedStretches(
  db: Queryable,
  stretches: JudgedStretch[],
  judgedAt: Date,
): Promise<JudgedStretch[]> {
  if (stretches.length === 0) return [];
  const { rows } = await db.query<{ n: string }>(
    prepared(
      'insert_judged_slot_stretches',
      `WITH given AS (
         SELECT * FROM ROWS FROM (json_to_recordset($1::json) AS (job_id int, first_at timestamptz,
                  last_at timestamptz, slot_count int, outcome text, reason text, fields text, time_zone text))
           WITH ORDINALITY AS t(job_id, first_at, last_at, slot_count, outcome, reason, fields, time_zone, n)
       ),
       inserted AS (
         INSERT INTO slot_stretches (job_id, first_at, last_at, slot_count, outcome, reason, fields, time_zone, judged_at)
         SELECT job_id, first_at, last_at, slot_count, outcome, reason, fields, time_zone, $2 FROM given
         ON CONFLICT (job_id, first_at) DO NOTHING
         RETURNING job_id, first_at, outcome, slot_count
       ),
       counted AS (
         UPDATE slot_counters c SET total = c.total + s.n
         FROM (SELECT outcome, sum(slot_count) AS n FROM inserted GROUP BY outcome) s WHERE c.outcome = s.outcome
       )
       SELECT given.n FROM inserted JOIN given USING (job_id, first_at)`,
      [
        JSON.stringify(
          stretches.map((s) => ({
            job_id: s.jobId,
            first_at: s.first,
            last_at: s.last,
            slot_count: s.count,
            outcome: s.outcome,
            reason: s.reason,
            fields: s.fields,
            time_zone: s.timeZone,
          })),
        ),
        judgedAt,
      ],
    ),
  );
  return rows.map((row) => stretches[Number(row.n) - 1]!);
}

/**
 * For each range, the first instant in it at which something is known of its job that could set
 * a slot's outcome apart from the slots before it: a run or `skipped` row naming a slot, a claim,
 * an attempt starting, an attempt going at the range's start ending, a hold of the job or of the
 * scheduler beginning or ending. Before it, every slot of the range has the outcome its first
 * has. Jobs with none in their range are absent. Each part is a probe of an index per range.
 */
export async function firstEvidenceTimes(db: Queryable, ranges: SlotRange[]): Promise<Map<number, Date>> {
  if (ranges.length === 0) return new Map();
  const { rows } = await db.query<{ job_id: number; at: Date | null }>(
    prepared(
      'slot_first_evidence_times',
      `SELECT r.job_id, least(
           (SELECT e.scheduled_at FROM executions e
             WHERE e.job_id = r.job_id AND e.scheduled_at > r.after AND e.scheduled_at <= r.until
               AND e.trigger IS DISTINCT FROM 'backfill'
             ORDER BY e.scheduled_at LIMIT 1),
           (SELECT c.scheduled_at FROM slot_claims c
             WHERE c.job_id = r.job_id AND c.scheduled_at > r.after AND c.scheduled_at <= r.until
             ORDER BY c.scheduled_at LIMIT 1),
           (SELECT e.started_at FROM executions e
             WHERE e.job_id = r.job_id AND e.started_at > r.after AND e.started_at <= r.until
               AND e.status <> 'skipped' AND e.trigger IS DISTINCT FROM 'backfill'
             ORDER BY e.started_at, e.id LIMIT 1),
           (SELECT min(going.finished_at) FROM (
              SELECT e.status, e.finished_at FROM executions e
               WHERE e.job_id = r.job_id AND e.started_at <= r.after
                 AND e.status <> 'skipped' AND e.trigger IS DISTINCT FROM 'backfill'
               ORDER BY e.started_at DESC, e.id DESC LIMIT 2) going
             WHERE going.status <> 'running' AND going.finished_at > r.after AND going.finished_at <= r.until),
           (SELECT min(edge.at) FROM slot_holds h CROSS JOIN LATERAL (VALUES (h.from_at), (h.until_at)) AS edge(at)
             WHERE (h.job_id = r.job_id OR h.job_id IS NULL) AND edge.at > r.after AND edge.at <= r.until)
         ) AS at
         FROM unnest($1::int[], $2::timestamptz[], $3::timestamptz[]) AS r(job_id, after, until)`,
      [ranges.map((r) => r.jobId), ranges.map((r) => r.after), ranges.map((r) => r.until)],
    ),
  );
  return new Map(rows.flatMap((row) => (row.at ? [[row.job_id, row.at] as [number, Date]] : [])));
}

/** A stretch as reads expand it. */
interface StoredStretch {
  first: Date;
  last: Date;
  outcome: SlotOutcome;
  reason: string | null;
  fields: string;
  timeZone: string;
}

/** The stretches of a job that overlap [from, to], newest first, at most `limit`. */
async function stretchesOverlapping(
  db: Queryable,
  jobId: number,
  from: Date | null,
  to: Date | null,
  limit: number,
): Promise<StoredStretch[]> {
  const { rows } = await db.query<{
    first_at: Date;
    last_at: Date;
    outcome: SlotOutcome;
    reason: string | null;
    fields: string;
    time_zone: string;
  }>(
    `SELECT first_at, last_at, outcome, reason, fields, time_zone FROM slot_stretches
      WHERE job_id = $1 AND first_at <= coalesce($3, 'infinity'::timestamptz)
        AND last_at >= coalesce($2, '-infinity'::timestamptz)
      ORDER BY first_at DESC LIMIT $4`,
    [jobId, from, to, limit],
  );
  return rows.map((row) => ({
    first: row.first_at,
    last: row.last_at,
    outcome: row.outcome,
    reason: row.reason,
    fields: row.fields,
    timeZone: row.time_zone,
  }));
}

/** One slot as `GET /api/jobs/:id/slots` answers it, keys in that order. */
interface SlotItem {
  scheduledAt: string;
  outcome: SlotOutcome;
  executionIds: number[];
  startedAt: string | null;
  delayMs: number | null;
  reason: string | null;
}

/**
 * A page of a job's slots where stretches overlap it: its rows of `slots` (`singles`, the page the
 * statement rendered from them alone, newest first, at most `limit`) and each fire time of the
 * stretches within [from, to] as a slot of its own, exactly as it would read had it been judged
 * alone, newest first, `limit` at most. A row of `slots` at a stretch's fire time (a run that
 * arrived late for it) stands for that slot.
 */
export async function pageWithStretches(
  db: Queryable,
  jobId: number,
  range: { from: Date | null; to: Date | null; limit: number },
  singles: string,
): Promise<string> {
  const items = JSON.parse(singles) as SlotItem[];
  const taken = new Set(items.map((item) => item.scheduledAt));
  const stretches = await stretchesOverlapping(db, jobId, range.from, range.to, range.limit);
  for (const stretch of stretches) {
    // Enough already, all newer than anything this stretch (or an older one) holds.
    if (items.length >= range.limit && oldestOf(items, range.limit) > stretch.last.toISOString()) break;
    const after = new Date(Math.max(stretch.first.getTime() - 1, (range.from?.getTime() ?? -Infinity) - 1));
    const until = new Date(Math.min(stretch.last.getTime(), range.to?.getTime() ?? Infinity));
    for (const time of newestFireTimes(stretch.fields, stretch.timeZone, after, until, range.limit)) {
      const scheduledAt = time.toISOString();
      if (taken.has(scheduledAt)) continue;
      taken.add(scheduledAt);
      items.push({
        scheduledAt,
        outcome: stretch.outcome,
        executionIds: [],
        startedAt: null,
        delayMs: null,
        reason: stretch.reason,
      });
    }
  }
  items.sort((a, b) => (a.scheduledAt < b.scheduledAt ? 1 : a.scheduledAt > b.scheduledAt ? -1 : 0));
  return JSON.stringify(items.slice(0, range.limit));
}

/** The `n`-th newest time among `items` (ISO strings compare as the times do). */
function oldestOf(items: SlotItem[], n: number): string {
  return items
    .map((item) => item.scheduledAt)
    .sort()
    .reverse()[n - 1]!;
}

/**
 * The fire times of stretches within `ranges` with the outcome judged for them, by job and slot
 * time (ms), for what reads judged outcomes slot by slot (catch-up): each range's stretch fire
 * times, at most `maxPerRange` of the newest.
 */
export async function stretchOutcomesIn(
  db: Queryable,
  ranges: SlotRange[],
  maxPerRange: number,
): Promise<Map<number, Map<number, SlotOutcome>>> {
  const outcomes = new Map<number, Map<number, SlotOutcome>>();
  if (ranges.length === 0) return outcomes;
  const { rows } = await db.query<{
    job_id: number;
    after: Date;
    until: Date;
    first_at: Date;
    last_at: Date;
    outcome: SlotOutcome;
    fields: string;
    time_zone: string;
  }>(
    `SELECT r.job_id, r.after, r.until, st.first_at, st.last_at, st.outcome, st.fields, st.time_zone
       FROM unnest($1::int[], $2::timestamptz[], $3::timestamptz[]) AS r(job_id, after, until)
       JOIN slot_stretches st ON st.job_id = r.job_id AND st.first_at <= r.until AND st.last_at > r.after`,
    [ranges.map((r) => r.jobId), ranges.map((r) => r.after), ranges.map((r) => r.until)],
  );
  for (const row of rows) {
    const after = new Date(Math.max(row.after.getTime(), row.first_at.getTime() - 1));
    const until = new Date(Math.min(row.until.getTime(), row.last_at.getTime()));
    let ofJob = outcomes.get(row.job_id);
    if (!ofJob) outcomes.set(row.job_id, (ofJob = new Map()));
    for (const time of newestFireTimes(row.fields, row.time_zone, after, until, maxPerRange)) {
      ofJob.set(time.getTime(), row.outcome);
    }
  }
  return outcomes;
}

/** Prunes the stretches that ended before `cutoff` (retention). */
export async function pruneStretches(db: Queryable, cutoff: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM slot_stretches WHERE last_at < $1', [cutoff]);
  return rowCount ?? 0;
}
