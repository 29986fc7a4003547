import { SERVICE_STOPPED } from '../domain/failureReasons';
import { type CatchUp, type LastSlot, SLOT_OUTCOMES, type SlotOutcome } from '../domain/slots';
import type { ActiveRun, SlotClaimEvidence, SlotHold, SlotJudgement, SlotRun } from '../domain/slotRules';
import type { SchedulerState } from '../domain/schedulerState';
import { prepared, type Queryable } from './database';
import { withListVersion } from './listVersions';
import { SLOT_EVIDENCE_LOCK_KEY, TURNED_LATE_REASON } from './migrations/017_slot_ledger';
import { TURNED_LATE_AFTER_SKIP_REASON } from './migrations/027_runs_complete_inferred_skips';
import { pageWithStretches, pruneStretches, stretchOutcomesIn } from './slotStretches';

/** A schedule a job had before an edit, whose slots up to `until` are judged by it. */
export interface EarlierSchedule {
  schedule: string;
  timezone: string | null;
  until: Date;
}

/** The judge's cursor of one job (migration 017), with what the judge needs of the job. */
export interface SlotCursor {
  jobId: number;
  jobName: string;
  judgedUntil: Date;
  dueAt: Date | null;
  schedule: string;
  timezone: string | null;
  earlierSchedules: EarlierSchedule[];
  lateAfterSeconds: number;
  catchUp: CatchUp | null;
}

interface CursorRow {
  job_id: number;
  job_name: string;
  judged_until: Date;
  due_at: Date | null;
  schedule: string;
  timezone: string | null;
  earlier_schedules: { schedule: string; timezone: string | null; until: string }[];
  late_after_s: number;
  catch_up: CatchUp | null;
}

/** What the ledger keeps of a saved job. */
interface LedgerJob {
  id: number;
  schedule: string;
  timezone: string | null;
  enabled: boolean;
  lateAfterSeconds: number;
}

/**
 * Notes in the ledger that jobs were saved at `at`, in one statement whatever their number (a
 * batch of creations, a jobs file's sync), for each job:
 * - its cursor: a new job's ledger starts then; a changed schedule or time zone is kept as an
 *   earlier schedule up to `at` (when slots before it are still to be judged), so that each slot
 *   is judged by the schedule in force at its time; the next slot is computed again by the judge
 *   (`due_at` null), the schedule or the grace having maybe changed;
 * - its hold: a job switched off opens one (`holdReason` says why), switched on closes it. An open
 *   hold stays as it is when the job is saved off again.
 * The cursors are written in the order of their jobs' ids, as every other writer of several takes
 * them, so that two such writes never wait on each other in a cycle.
 */
export async function saveJobsInLedger(
  db: Queryable,
  jobs: readonly LedgerJob[],
  at: Date,
  holdReason = DISABLED_HOLD_REASON,
): Promise<void> {
  if (jobs.length === 0) return;
  // A save that changes none of it (a resync of a cluster resource) writes nothing.
  await db.query(
    prepared(
      'save_jobs_in_slot_ledger',
      `WITH saved AS (
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bool[], $5::int[])
           AS s (job_id, schedule, timezone, enabled, late_after_s)
       ),
       cursor AS (
         INSERT INTO slot_cursors AS c (job_id, judged_until, schedule, timezone, late_after_s)
         SELECT job_id, $6, schedule, timezone, late_after_s FROM saved ORDER BY job_id
         ON CONFLICT (job_id) DO UPDATE SET
           earlier_schedules = CASE
             WHEN (c.schedule, c.timezone) IS DISTINCT FROM (EXCLUDED.schedule, EXCLUDED.timezone)
               AND c.judged_until < $6
             THEN c.earlier_schedules || jsonb_build_array(jsonb_build_object(
               'schedule', c.schedule, 'timezone', c.timezone, 'until', $6::timestamptz))
             ELSE c.earlier_schedules END,
           schedule = EXCLUDED.schedule, timezone = EXCLUDED.timezone, late_after_s = EXCLUDED.late_after_s,
           due_at = NULL
         WHERE (c.schedule, c.timezone, c.late_after_s)
           IS DISTINCT FROM (EXCLUDED.schedule, EXCLUDED.timezone, EXCLUDED.late_after_s)
       ),
       opened AS (
         INSERT INTO slot_holds (job_id, kind, from_at, reason)
         SELECT job_id, 'suspended', $6, $7 FROM saved WHERE NOT enabled
         ON CONFLICT ((coalesce(job_id, 0)), kind) WHERE until_at IS NULL DO NOTHING
       ),
       closed AS (
         UPDATE slot_holds h SET until_at = greatest(h.from_at, $6)
         FROM saved
         WHERE saved.enabled AND h.job_id = saved.job_id AND h.kind = 'suspended' AND h.until_at IS NULL
       )
       SELECT 1`,
      [
        jobs.map((job) => job.id),
        jobs.map((job) => job.schedule),
        jobs.map((job) => job.timezone),
        jobs.map((job) => job.enabled),
        jobs.map((job) => job.lateAfterSeconds),
        at,
        holdReason,
      ],
    ),
  );
}

/** Why a job saved switched off holds its slots, unless the caller says otherwise. */
export const DISABLED_HOLD_REASON = 'the job was disabled at that time';

/**
 * The part of a statement that starts the ledger of the jobs it has just created, as
 * `saveJobsInLedger` does for a new job: two more `WITH` items, after the one named `created` that
 * returns the new jobs' `id, name, schedule, timezone, enabled, late_after_s`. Their cursors start
 * at `at`, due when `firstDue` (a relation of `name, due_at`) says: the judge's own plan for a new
 * cursor (slotPlan.ts `firstDueAt`), so that it reads no new job before its first slot's grace has
 * passed; a job absent there, or due at null, is planned by the judge's next pass. Those created
 * switched off open a hold for `holdReason`. `at` and `holdReason` are SQL expressions, such as
 * parameters. A job and its ledger then commit in one statement, with no transaction around them.
 */
export function startLedgerOfCreated(at: string, holdReason: string, firstDue: string): string {
  return `cursor AS (
      INSERT INTO slot_cursors (job_id, judged_until, schedule, timezone, late_after_s, due_at)
      SELECT created.id, ${at}, created.schedule, created.timezone, created.late_after_s, due.due_at
      FROM created LEFT JOIN ${firstDue} AS due USING (name) ORDER BY created.id
    ),
    opened AS (
      INSERT INTO slot_holds (job_id, kind, from_at, reason)
      SELECT id, 'suspended', ${at}, ${holdReason} FROM created WHERE NOT enabled
    )`;
}

/** `saveJobsInLedger` for one job. */
export async function saveJobInLedger(
  db: Queryable,
  job: LedgerJob,
  at: Date,
  holdReason?: string,
): Promise<void> {
  await saveJobsInLedger(db, [job], at, holdReason);
}

/**
 * Starts the cursors of jobs that have none (a job written by a path that does not save its
 * cursor, such as a row mirrored from a cluster resource): at their creation.
 */
export async function startMissingCursors(db: Queryable): Promise<void> {
  await db.query(
    prepared(
      'start_missing_slot_cursors',
      `INSERT INTO slot_cursors (job_id, judged_until, schedule, timezone, late_after_s)
       SELECT j.id, j.created_at, j.schedule, j.timezone, j.late_after_s FROM jobs j
       WHERE NOT EXISTS (SELECT 1 FROM slot_cursors c WHERE c.job_id = j.id)
       ON CONFLICT (job_id) DO NOTHING`,
      [],
    ),
  );
}

/**
 * Writes the scheduler's switch as holds: a pause in force is ended at `at`, and a new pause is a
 * hold from `at` until its `until` (open when it has none).
 */
export async function holdScheduler(db: Queryable, state: SchedulerState, at: Date): Promise<void> {
  await db.query(
    `UPDATE slot_holds SET until_at = greatest(from_at, $1)
     WHERE job_id IS NULL AND kind = 'paused' AND (until_at IS NULL OR until_at > $1)`,
    [at],
  );
  if (state.paused) {
    await db.query(
      `INSERT INTO slot_holds (job_id, kind, from_at, until_at, reason)
       VALUES (NULL, 'paused', $1, $2, 'the scheduler was paused at that time')`,
      [at, state.until],
    );
  }
}

/*
 * The evidence locks (migrations 017 and 019). A run recorded while its slot is judged must be
 * either seen by the judgement or find the slot it wrote (and complete it: migration 017's
 * trigger), never neither. Each job has an advisory lock of its own, `(SLOT_EVIDENCE_LOCK_KEY,
 * job id)`: the judge holds those of the jobs it judges, exclusively, from before it reads their
 * evidence until it commits; a recording (or a claim) of a run with a slot holds its jobs' shared
 * from before it reads or locks any row of `slots` or `slot_cursors` until it commits. A
 * recording waits only for a judgement of its own job, and for one batch at most.
 *
 * Why no deadlock can come of them:
 * - The judge never waits for a job's lock: it tries each (`pg_try_advisory_xact_lock`) and leaves
 *   a job being recorded right now to its next batch or pass, whose judgement sees the run.
 * - Shared locks never wait for each other, so recordings and claims wait only for a judge.
 * - Once it holds jobs' locks, the judge waits for nothing a recording may hold while it waits
 *   for one of them: its cursors are locked SKIP LOCKED, and so are its jobs' rows, KEY SHARE (the
 *   slots it inserts refer to them: a job being deleted is left); the slots it inserts are its
 *   jobs' (no one else inserts slots), and so are the alerts it queues (keyed by slot); the
 *   counters are written only by judges, one at a time (`lockJudging`); and the list version its
 *   cursor moves bump (the job list's row of its connection, migration 009) is never held by a
 *   recording waiting for a job's lock: a statement inserting runs takes their jobs' locks in the
 *   first of its AFTER triggers (migration 019), before the list versions are bumped, and the
 *   recorder inserts a transaction's finished runs before it finishes running attempts (which
 *   bumps the job list's version); a claim takes its job's lock first thing.
 * - Recordings take their jobs' locks in ascending order all the same, as belt and braces.
 */

/**
 * Makes this transaction the only judge at work (another judge waits until it commits): what the
 * judges alone write, the slot counters, is then never written by two at once. Recordings never
 * take this lock. Taken before anything else, with nothing held.
 */
export async function lockJudging(db: Queryable): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1)', [SLOT_EVIDENCE_LOCK_KEY]);
}

/**
 * Takes the evidence locks of `jobIds` shared for the rest of the transaction, in ascending order:
 * a judgement of one of them in progress is waited for, and one to come sees what this transaction
 * records. First thing in a transaction, before any other lock.
 */
async function lockSlotEvidenceOf(db: Queryable, jobIds: readonly number[]): Promise<void> {
  const ascending = [...new Set(jobIds)].sort((a, b) => a - b);
  if (ascending.length === 0) return;
  await db.query(
    prepared(
      'lock_slot_evidence_of',
      `SELECT count(pg_advisory_xact_lock_shared($1, job_id))
         FROM (SELECT job_id FROM unnest($2::int[]) WITH ORDINALITY AS t(job_id, n) ORDER BY n) AS ascending`,
      [SLOT_EVIDENCE_LOCK_KEY, ascending],
    ),
  );
}

/** What `lockDueCursors` found: the cursors it locked, and how many were due. */
interface DueCursors {
  cursors: SlotCursor[];
  /** Due cursors looked at, locked or not: fewer than the limit when none are left. */
  due: number;
}

/**
 * The cursors with something to judge at `now` (or a next slot to compute), earliest first, at
 * most `limit`, with their jobs' evidence locks (exclusive) and locked for the rest of the
 * transaction. A job whose run is being recorded right now (its lock is held shared), whose
 * cursor is being changed by an edit, or which is being deleted, is left for the next batch rather
 * than waited for.
 */
export async function lockDueCursors(db: Queryable, now: Date, limit: number): Promise<DueCursors> {
  const { rows: due } = await db.query<{ job_id: number; locked: boolean }>(
    prepared(
      'lock_due_slot_evidence',
      `SELECT due.job_id, pg_try_advisory_xact_lock($3, due.job_id) AS locked
         FROM (SELECT job_id FROM slot_cursors WHERE due_at IS NULL OR due_at <= $1
               ORDER BY due_at NULLS FIRST, job_id LIMIT $2) AS due`,
      [now, limit, SLOT_EVIDENCE_LOCK_KEY],
    ),
  );
  const locked = due.filter((row) => row.locked).map((row) => row.job_id);
  if (locked.length === 0) return { cursors: [], due: due.length };
  const { rows } = await db.query<CursorRow>(
    prepared(
      'lock_due_slot_cursors',
      `SELECT c.job_id, j.name AS job_name, c.judged_until, c.due_at, c.schedule, c.timezone,
              c.earlier_schedules, j.late_after_s, j.catch_up
       FROM slot_cursors c JOIN jobs j ON j.id = c.job_id
       WHERE c.job_id = ANY($2::int[]) AND (c.due_at IS NULL OR c.due_at <= $1)
       ORDER BY c.due_at NULLS FIRST, c.job_id
       FOR UPDATE OF c SKIP LOCKED FOR KEY SHARE OF j SKIP LOCKED`,
      [now, locked],
    ),
  );
  return { cursors: rows.map(toCursor), due: due.length };
}

function toCursor(row: CursorRow): SlotCursor {
  return {
    jobId: row.job_id,
    jobName: row.job_name,
    judgedUntil: row.judged_until,
    dueAt: row.due_at,
    schedule: row.schedule,
    timezone: row.timezone,
    earlierSchedules: row.earlier_schedules.map((each) => ({ ...each, until: new Date(each.until) })),
    lateAfterSeconds: row.late_after_s,
    catchUp: row.catch_up,
  };
}

/** The cursors of some jobs, unlocked (the local runtime's catch-up reads where the ledger stands). */
export async function readCursors(db: Queryable, jobIds: number[]): Promise<Map<number, SlotCursor>> {
  if (jobIds.length === 0) return new Map();
  const { rows } = await db.query<CursorRow>(
    `SELECT c.job_id, j.name AS job_name, c.judged_until, c.due_at, c.schedule, c.timezone,
            c.earlier_schedules, j.late_after_s, j.catch_up
     FROM slot_cursors c JOIN jobs j ON j.id = c.job_id WHERE c.job_id = ANY($1::int[])`,
    [jobIds],
  );
  return new Map(rows.map((row) => [row.job_id, toCursor(row)]));
}

/** A range of one job's slots: after `after`, up to and including `until`. */
export interface SlotRange {
  jobId: number;
  after: Date;
  until: Date;
}

/** What is known of the slots of some ranges, by job and slot time (ms). */
export interface RangeEvidence {
  runs: Map<number, Map<number, SlotRun[]>>;
  skipped: Map<number, Map<number, number[]>>;
  claims: Map<number, Map<number, SlotClaimEvidence>>;
  /** Holds by job, the scheduler's under every job. */
  holds: Map<number, SlotHold[]>;
  /** By job: its attempts (backfills' aside) that were going at some time of its range. */
  active: Map<number, ActiveRun[]>;
}

/**
 * The evidence of the slots in `ranges`, in four statements whatever their number: the first
 * attempts of runs that name a slot (backfills are not the schedule's), `skipped` rows, claims,
 * the holds that overlap the ranges, and the attempts going during them (`activeRunsIn`).
 */
export async function loadSlotEvidence(db: Queryable, ranges: SlotRange[]): Promise<RangeEvidence> {
  const evidence: RangeEvidence = {
    runs: new Map(),
    skipped: new Map(),
    claims: new Map(),
    holds: new Map(),
    active: new Map(),
  };
  if (ranges.length === 0) return evidence;
  const rangeValues = [ranges.map((r) => r.jobId), ranges.map((r) => r.after), ranges.map((r) => r.until)];
  // One after the other: `db` may be one client inside a transaction.
  const executions = await db.query<{
    job_id: number;
    scheduled_at: Date;
    id: string;
    started_at: Date;
    status: string;
  }>(
    prepared(
      'slot_evidence_executions',
      `SELECT e.job_id, e.scheduled_at, e.id, e.started_at, e.status
         FROM unnest($1::int[], $2::timestamptz[], $3::timestamptz[]) AS r(job_id, after, until)
         JOIN executions e ON e.job_id = r.job_id AND e.scheduled_at IS NOT NULL
           AND e.scheduled_at > r.after AND e.scheduled_at <= r.until
         WHERE e.attempt = 0 AND e.trigger IS DISTINCT FROM 'backfill'`,
      rangeValues,
    ),
  );
  const claims = await db.query<{
    job_id: number;
    scheduled_at: Date;
    run_key: string;
    claimed_at: Date;
    duplicate_keys: string[];
    prevented_keys: string[];
  }>(
    prepared(
      'slot_evidence_claims',
      `SELECT c.job_id, c.scheduled_at, c.run_key, c.claimed_at, c.duplicate_keys, c.prevented_keys
         FROM unnest($1::int[], $2::timestamptz[], $3::timestamptz[]) AS r(job_id, after, until)
         JOIN slot_claims c ON c.job_id = r.job_id AND c.scheduled_at > r.after AND c.scheduled_at <= r.until`,
      rangeValues,
    ),
  );
  const holds = await db.query<{
    job_id: number | null;
    kind: SlotHold['kind'];
    from_at: Date;
    until_at: Date | null;
    reason: string | null;
  }>(
    prepared(
      'slot_evidence_holds',
      `SELECT job_id, kind, from_at, until_at, reason FROM slot_holds
         WHERE (job_id = ANY($1::int[]) OR job_id IS NULL) AND from_at <= $3
           AND (until_at IS NULL OR until_at > $2)`,
      [
        rangeValues[0],
        new Date(Math.min(...ranges.map((r) => r.after.getTime()))),
        new Date(Math.max(...ranges.map((r) => r.until.getTime()))),
      ],
    ),
  );
  for (const row of executions.rows) {
    const at = row.scheduled_at.getTime();
    if (row.status === 'skipped') bySlot(evidence.skipped, row.job_id, at, () => []).push(Number(row.id));
    else
      bySlot(evidence.runs, row.job_id, at, () => []).push({
        executionId: Number(row.id),
        startedAt: row.started_at,
      });
  }
  for (const row of claims.rows) {
    bySlot(evidence.claims, row.job_id, row.scheduled_at.getTime(), () => ({
      claimedAt: row.claimed_at,
      runKey: row.run_key,
      duplicateKeys: row.duplicate_keys,
      preventedKeys: row.prevented_keys,
    }));
  }
  const schedulerHolds: SlotHold[] = [];
  for (const row of holds.rows) {
    const hold = { kind: row.kind, fromAt: row.from_at, untilAt: row.until_at, reason: row.reason };
    if (row.job_id === null) schedulerHolds.push(hold);
    else evidence.holds.set(row.job_id, [...(evidence.holds.get(row.job_id) ?? []), hold]);
  }
  for (const { jobId } of ranges)
    evidence.holds.set(jobId, [...(evidence.holds.get(jobId) ?? []), ...schedulerHolds]);
  evidence.active = await activeRunsIn(db, ranges);
  return evidence;
}

/**
 * The attempts of each range's job that were going at some time of its range while no process
 * recorded its fire times: those running now, and those a start closed because the service had
 * stopped during them (a crash: its fire times meanwhile found the job running, though no one
 * wrote a `skipped` row). A run finished in a live service is not looked at: that service recorded
 * what its fire times found, by its own clock. Backfills' attempts are aside (they run beside the
 * schedule), as are `skipped` rows (no run). Those that started within the range, and the latest
 * two that started before it (runs of a job do not overlap, so more cannot be going then): both
 * ranges of the job's newest-first index.
 */
async function activeRunsIn(db: Queryable, ranges: SlotRange[]): Promise<Map<number, ActiveRun[]>> {
  const { rows } = await db.query<{ job_id: number; id: string; started_at: Date; finished_at: Date | null }>(
    prepared(
      'slot_evidence_active_runs',
      `SELECT r.job_id, e.id, e.started_at, CASE WHEN e.status = 'running' THEN NULL ELSE e.finished_at END AS finished_at
         FROM unnest($1::int[], $2::timestamptz[], $3::timestamptz[]) AS r(job_id, after, until)
         CROSS JOIN LATERAL (
           (SELECT id, started_at, finished_at, status, reason FROM executions e
             WHERE e.job_id = r.job_id AND e.started_at <= r.after
               AND e.status <> 'skipped' AND e.trigger IS DISTINCT FROM 'backfill'
             ORDER BY e.started_at DESC, e.id DESC LIMIT 2)
           UNION ALL
           (SELECT id, started_at, finished_at, status, reason FROM executions e
             WHERE e.job_id = r.job_id AND e.started_at > r.after AND e.started_at < r.until
               AND e.status <> 'skipped' AND e.trigger IS DISTINCT FROM 'backfill')
         ) e
        WHERE e.status = 'running' OR (e.reason = '${SERVICE_STOPPED.code}' AND e.finished_at > r.after)`,
      [ranges.map((r) => r.jobId), ranges.map((r) => r.after), ranges.map((r) => r.until)],
    ),
  );
  const active = new Map<number, ActiveRun[]>();
  for (const row of rows) {
    const runs = active.get(row.job_id) ?? [];
    active.set(row.job_id, runs);
    runs.push({ executionId: Number(row.id), startedAt: row.started_at, finishedAt: row.finished_at });
  }
  return active;
}

function bySlot<T>(map: Map<number, Map<number, T>>, jobId: number, at: number, create: () => T): T {
  let slots = map.get(jobId);
  if (!slots) map.set(jobId, (slots = new Map()));
  let value = slots.get(at);
  if (value === undefined) slots.set(at, (value = create()));
  return value;
}

/** Slots of a range a stretch's outcomes are read for at most (catch-up windows hold a week of minutes). */
const MAX_STRETCH_SLOTS_READ = 10_080;

/**
 * The outcomes already given to slots of some ranges, by job and slot time (ms): rows of `slots`,
 * and the fire times of stretches (migration 024) where no row of `slots` stands for them.
 */
export async function loadJudgedOutcomes(
  db: Queryable,
  ranges: SlotRange[],
): Promise<Map<number, Map<number, SlotOutcome>>> {
  if (ranges.length === 0) return new Map();
  const outcomes = await stretchOutcomesIn(db, ranges, MAX_STRETCH_SLOTS_READ);
  const { rows } = await db.query<{ job_id: number; scheduled_at: Date; outcome: SlotOutcome }>(
    `SELECT s.job_id, s.scheduled_at, s.outcome
     FROM unnest($1::int[], $2::timestamptz[], $3::timestamptz[]) AS r(job_id, after, until)
     JOIN slots s ON s.job_id = r.job_id AND s.scheduled_at > r.after AND s.scheduled_at <= r.until`,
    [ranges.map((r) => r.jobId), ranges.map((r) => r.after), ranges.map((r) => r.until)],
  );
  for (const row of rows) {
    let ofJob = outcomes.get(row.job_id);
    if (!ofJob) outcomes.set(row.job_id, (ofJob = new Map()));
    ofJob.set(row.scheduled_at.getTime(), row.outcome);
  }
  return outcomes;
}

/** One judged slot, as the judge writes it. */
export interface JudgedSlot extends SlotJudgement {
  jobId: number;
  scheduledAt: Date;
  /**
   * A slot that stands for a stretch (migration 024) as the judge tells it (alerts): its last
   * slot and how many it holds, `scheduledAt` being its first.
   */
  stretch?: { lastScheduledAt: Date; slotCount: number };
}

/**
 * Writes judged slots, each once (a slot written before is left as it was), and counts those
 * written in the durable counter behind `service_slots_total`: one statement. Answers the slots
 * it wrote.
 */
export async function insertJudgedSlots(
  db: Queryable,
  slots: JudgedSlot[],
  judgedAt: Date,
): Promise<JudgedSlot[]> {
  if (slots.length === 0) return [];
  const { rows } = await db.query<{ n: string }>(
    prepared(
      'insert_judged_slots',
      `WITH given AS (
         SELECT * FROM ROWS FROM (json_to_recordset($1::json) AS (job_id int, scheduled_at timestamptz,
                  outcome text, execution_ids bigint[], started_at timestamptz, delay_ms bigint, reason text))
           WITH ORDINALITY AS t(job_id, scheduled_at, outcome, execution_ids, started_at, delay_ms, reason, n)
       ),
       inserted AS (
         INSERT INTO slots (job_id, scheduled_at, outcome, execution_ids, started_at, delay_ms, reason, judged_at)
         SELECT job_id, scheduled_at, outcome, execution_ids, started_at, delay_ms, reason, $2 FROM given
         ON CONFLICT (job_id, scheduled_at) DO NOTHING
         RETURNING job_id, scheduled_at, outcome
       ),
       counted AS (
         UPDATE slot_counters c SET total = c.total + s.n
         FROM (SELECT outcome, count(*) AS n FROM inserted GROUP BY outcome) s WHERE c.outcome = s.outcome
       )
       SELECT given.n FROM inserted JOIN given USING (job_id, scheduled_at)`,
      [
        JSON.stringify(
          slots.map((s) => ({
            job_id: s.jobId,
            scheduled_at: s.scheduledAt,
            outcome: s.outcome,
            execution_ids: s.executionIds,
            started_at: s.startedAt,
            delay_ms: s.delayMs,
            reason: s.reason,
          })),
        ),
        judgedAt,
      ],
    ),
  );
  return rows.map((row) => slots[Number(row.n) - 1]!);
}

/** Where a cursor moves: everything up to `judgedUntil` judged, the next slot due at `dueAt`. */
export interface CursorMove {
  jobId: number;
  judgedUntil: Date;
  dueAt: Date | null;
  earlierSchedules: EarlierSchedule[];
  lastSlot: { scheduledAt: Date; outcome: SlotOutcome } | null;
}

/** Moves cursors (locked by `lockDueCursors` in the same transaction), in one statement. */
export async function moveCursors(db: Queryable, moves: CursorMove[]): Promise<void> {
  if (moves.length === 0) return;
  const judged = moves.filter((move) => move.lastSlot);
  const unchanged = moves.filter((move) => !move.lastSlot);
  // Two statements at most: only a move that judged a slot changes what the job list shows.
  if (judged.length > 0) {
    await db.query(
      prepared(
        'move_slot_cursors',
        `UPDATE slot_cursors c SET judged_until = t.judged_until, due_at = t.due_at,
           earlier_schedules = t.earlier, last_slot_at = t.last_slot_at, last_outcome = t.last_outcome
         FROM json_to_recordset($1::json) AS t(job_id int, judged_until timestamptz, due_at timestamptz,
           earlier jsonb, last_slot_at timestamptz, last_outcome text)
         WHERE c.job_id = t.job_id`,
        [
          JSON.stringify(
            judged.map((m) => ({
              ...cursorRecord(m),
              last_slot_at: m.lastSlot!.scheduledAt,
              last_outcome: m.lastSlot!.outcome,
            })),
          ),
        ],
      ),
    );
  }
  if (unchanged.length > 0) {
    await db.query(
      prepared(
        'advance_slot_cursors',
        `UPDATE slot_cursors c SET judged_until = t.judged_until, due_at = t.due_at, earlier_schedules = t.earlier
         FROM json_to_recordset($1::json) AS t(job_id int, judged_until timestamptz, due_at timestamptz, earlier jsonb)
         WHERE c.job_id = t.job_id`,
        [JSON.stringify(unchanged.map(cursorRecord))],
      ),
    );
  }
}

/**
 * A cursor's move as `moveCursors` sends it, one JSON array for the batch (see `createJobs`): dates
 * as JSON writes them (ISO 8601 UTC), the earlier schedules as they are.
 */
function cursorRecord(move: CursorMove) {
  return {
    job_id: move.jobId,
    judged_until: move.judgedUntil,
    due_at: move.dueAt,
    earlier: move.earlierSchedules,
  };
}

/** An instant as JSON writes a Date (`toISOString`), rendered by the server. */
const ISO_INSTANT = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** The statement of `listSlotsJson` (the bench times it alone). */
export const LIST_SLOTS_JSON_SQL = `SELECT '[' || coalesce((
       SELECT string_agg(row_to_json(page)::text, ',' ORDER BY page."scheduledAt" DESC)
       FROM (SELECT to_char(scheduled_at AT TIME ZONE 'UTC', ${ISO_INSTANT}) AS "scheduledAt",
                    outcome AS "outcome", execution_ids AS "executionIds",
                    to_char(started_at AT TIME ZONE 'UTC', ${ISO_INSTANT}) AS "startedAt",
                    delay_ms AS "delayMs", reason AS "reason"
             FROM slots
             WHERE job_id = $1 AND scheduled_at >= coalesce($2, '-infinity'::timestamptz)
               AND scheduled_at <= coalesce($3, 'infinity'::timestamptz)
             ORDER BY scheduled_at DESC LIMIT $4) AS page
     ), '') || ']' AS body,
     EXISTS (SELECT 1 FROM slot_stretches st
              WHERE st.job_id = $1 AND st.first_at <= coalesce($3, 'infinity'::timestamptz)
                AND st.last_at >= coalesce($2, '-infinity'::timestamptz)) AS stretched
   FROM jobs WHERE id = $1`;

/**
 * A job's judged slots within [from, to], newest first (a backward scan of the primary key), as
 * the JSON array `GET /api/jobs/:id/slots` answers: `scheduledAt`, `outcome`, `executionIds`,
 * `startedAt`, `delayMs`, `reason`, in that order, compact, instants as `Date.toJSON` writes them.
 * The server renders it: a page of a thousand slots parsed into rows and dates and written out
 * again cost the service ten times the statement. `body` is null when the job does not exist;
 * `version` is the slot pages' version (migration 018), read in the same statement, so of the same
 * snapshot as the page. Where a stretch (migration 024) overlaps the range, each of its fire times
 * is answered as a slot of its own (`pageWithStretches`): one more statement, for those pages only.
 */
export async function listSlotsJson(
  db: Queryable,
  jobId: number,
  range: { from: Date | null; to: Date | null; limit: number },
): Promise<{ body: string | null; version: string }> {
  const { rows } = await db.query<{ list_version: string; body: string | null; stretched: boolean | null }>(
    prepared('list_slots_json_versioned', withListVersion('slots', LIST_SLOTS_JSON_SQL), [
      jobId,
      range.from,
      range.to,
      range.limit,
    ]),
  );
  const { list_version: version, body, stretched } = rows[0]!;
  if (body !== null && stretched) return { body: await pageWithStretches(db, jobId, range, body), version };
  return { body, version };
}

/** The answer to a claim on a slot (the claim contract of docs/slots.md). */
export type ClaimAnswer =
  | { claimed: true; duplicate: false }
  | { claimed: true; duplicate: true }
  | { claimed: false; holder: string };

/** How many further claimants' keys a claim keeps: enough to name them, bounded whatever happens. */
const MAX_KEPT_KEYS = 20;

/**
 * Claims a slot for the run `runKey` at `at`. The first claimant has it, and so has the same run
 * asking again; a further one is let through when `allowDuplicates` (the slot will be judged
 * `duplicate`), else refused and kept as prevented. A claim that comes after the slot was judged
 * `missed` (or `skipped` only because an earlier attempt seemed in progress: migration 027) turns
 * it `late` at once, its time standing for the run's start until the run is recorded and gives the
 * slot its execution, start and delay (migration 027's trigger).
 */
export async function claimSlot(
  db: Queryable,
  claim: { jobId: number; scheduledAt: Date; runKey: string; allowDuplicates: boolean; at: Date },
): Promise<ClaimAnswer> {
  // As a recording takes it: a claim is seen by a judgement of its job in progress or sees its slot.
  await lockSlotEvidenceOf(db, [claim.jobId]);
  const { rows } = await db.query<{
    run_key: string;
    duplicate_keys: string[];
    prevented_keys: string[];
    inserted: boolean;
  }>(
    `INSERT INTO slot_claims AS c (job_id, scheduled_at, run_key, claimed_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (job_id, scheduled_at) DO UPDATE SET
       duplicate_keys = CASE WHEN $5 AND c.run_key <> $3 AND NOT $3 = ANY (c.duplicate_keys)
                               AND cardinality(c.duplicate_keys) < ${MAX_KEPT_KEYS}
                             THEN c.duplicate_keys || $3 ELSE c.duplicate_keys END,
       prevented_keys = CASE WHEN NOT $5 AND c.run_key <> $3 AND NOT $3 = ANY (c.prevented_keys)
                               AND cardinality(c.prevented_keys) < ${MAX_KEPT_KEYS}
                             THEN c.prevented_keys || $3 ELSE c.prevented_keys END
     RETURNING c.run_key, c.duplicate_keys, c.prevented_keys, (xmax = 0) AS inserted`,
    [claim.jobId, claim.scheduledAt, claim.runKey, claim.at, claim.allowDuplicates],
  );
  const row = rows[0]!;
  if (row.inserted) {
    await db.query(
      `WITH turned AS (
         UPDATE slots SET outcome = 'late', started_at = $3,
           delay_ms = greatest(0, (extract(epoch FROM $3::timestamptz - scheduled_at) * 1000)::bigint),
           reason = CASE WHEN outcome = 'missed' THEN $4 ELSE $5 END
         WHERE job_id = $1 AND scheduled_at = $2
           AND (outcome = 'missed' OR (outcome = 'skipped' AND cardinality(execution_ids) = 0))
         RETURNING job_id, scheduled_at
       )
       UPDATE slot_cursors c SET last_outcome = 'late'
       FROM turned t WHERE c.job_id = t.job_id AND c.last_slot_at = t.scheduled_at`,
      [claim.jobId, claim.scheduledAt, claim.at, TURNED_LATE_REASON, TURNED_LATE_AFTER_SKIP_REASON],
    );
    // A slot of a missed stretch (migration 024) gets a row of its own, turned late the same way.
    await db.query(
      `WITH singled_out AS (
         INSERT INTO slots (job_id, scheduled_at, outcome, started_at, delay_ms, reason, judged_at)
         SELECT $1, $2, 'late', $3, greatest(0, (extract(epoch FROM $3::timestamptz - $2::timestamptz) * 1000)::bigint),
                $4, st.judged_at
         FROM slot_stretches st
         WHERE st.job_id = $1 AND st.first_at <= $2 AND st.last_at >= $2 AND st.outcome = 'missed'
           AND NOT EXISTS (SELECT 1 FROM slots s WHERE s.job_id = $1 AND s.scheduled_at = $2)
         ON CONFLICT (job_id, scheduled_at) DO NOTHING
         RETURNING job_id, scheduled_at
       )
       UPDATE slot_cursors c SET last_outcome = 'late'
       FROM singled_out t WHERE c.job_id = t.job_id AND c.last_slot_at = t.scheduled_at`,
      [claim.jobId, claim.scheduledAt, claim.at, TURNED_LATE_REASON],
    );
  }
  if (row.inserted || row.run_key === claim.runKey) return { claimed: true, duplicate: false };
  if (row.duplicate_keys.includes(claim.runKey)) return { claimed: true, duplicate: true };
  return { claimed: false, holder: row.run_key };
}

/** A job's last judged slot, or null before its first. */
export async function findLastSlot(db: Queryable, jobId: number): Promise<LastSlot | null> {
  const { rows } = await db.query<{ last_slot_at: Date | null; last_outcome: SlotOutcome | null }>(
    'SELECT last_slot_at, last_outcome FROM slot_cursors WHERE job_id = $1',
    [jobId],
  );
  const row = rows[0];
  return row?.last_slot_at && row.last_outcome
    ? { scheduledAt: row.last_slot_at, outcome: row.last_outcome }
    : null;
}

/** Durable counts of judged slots by outcome (`service_slots_total`). */
export async function readSlotCounters(db: Queryable): Promise<Record<SlotOutcome, number>> {
  const { rows } = await db.query<{ outcome: SlotOutcome; total: string }>(
    'SELECT outcome, total FROM slot_counters',
  );
  const counters = Object.fromEntries(SLOT_OUTCOMES.map((outcome) => [outcome, 0])) as Record<
    SlotOutcome,
    number
  >;
  for (const row of rows) counters[row.outcome] = Number(row.total);
  return counters;
}

/** When each job's latest successful execution finished, by job name; jobs that never succeeded are absent. */
export async function readLastSuccesses(db: Queryable): Promise<Map<string, Date>> {
  const { rows } = await db.query<{ name: string; finished_at: Date }>(
    `SELECT j.name, s.finished_at FROM jobs j
     CROSS JOIN LATERAL (
       SELECT finished_at FROM executions e WHERE e.job_id = j.id AND e.status = 'success'
       ORDER BY e.started_at DESC LIMIT 1
     ) s`,
  );
  return new Map(rows.map((row) => [row.name, row.finished_at]));
}

/**
 * Prunes the ledger with the executions' retention: slots, claims and holds that ended before
 * `cutoff`, and finished backfills. Slots go job by job, on their primary key.
 */
export async function pruneSlots(db: Queryable, cutoff: Date): Promise<number> {
  const { rows: jobs } = await db.query<{ id: number }>('SELECT id FROM jobs ORDER BY id');
  let removed = 0;
  for (let i = 0; i < jobs.length; i += 500) {
    const ids = jobs.slice(i, i + 500).map((job) => job.id);
    const { rowCount } = await db.query(
      'DELETE FROM slots WHERE job_id = ANY($1::int[]) AND scheduled_at < $2',
      [ids, cutoff],
    );
    removed += rowCount ?? 0;
  }
  removed += await pruneStretches(db, cutoff);
  await db.query('DELETE FROM slot_claims WHERE scheduled_at < $1', [cutoff]);
  await db.query('DELETE FROM slot_holds WHERE until_at < $1', [cutoff]);
  await db.query('DELETE FROM slot_backfills WHERE finished_at < $1', [cutoff]);
  return removed;
}

/** A backfill asked for (migration 017). */
export interface Backfill {
  id: number;
  jobId: number;
  slots: Date[];
  concurrency: number;
  /** How many of `slots`, in order, have had their run started. */
  started: number;
  requestedAt: Date;
  /**
   * Whose token makes its runs' Jobs on a cluster (migration 028): null, the controller's; else the
   * caller's, `creating` while the service makes them (suspended) and `created` once it has.
   */
  callerJobs: 'creating' | 'created' | null;
}

/** Records a backfill; null when the job has one unfinished already. */
export async function insertBackfill(
  db: Queryable,
  backfill: Omit<Backfill, 'id' | 'started'>,
): Promise<Backfill | null> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO slot_backfills (job_id, slots, concurrency, requested_at, caller_jobs)
     VALUES ($1, $2::timestamptz[], $3, $4, $5)
     ON CONFLICT (job_id) WHERE finished_at IS NULL DO NOTHING RETURNING id`,
    [backfill.jobId, backfill.slots, backfill.concurrency, backfill.requestedAt, backfill.callerJobs],
  );
  return rows[0] ? { ...backfill, id: Number(rows[0].id), started: 0 } : null;
}

export async function listUnfinishedBackfills(db: Queryable): Promise<Backfill[]> {
  const { rows } = await db.query<{
    id: string;
    job_id: number;
    slots: Date[];
    concurrency: number;
    started: number;
    requested_at: Date;
    caller_jobs: Backfill['callerJobs'];
  }>(
    `SELECT id, job_id, slots, concurrency, started, requested_at, caller_jobs FROM slot_backfills
     WHERE finished_at IS NULL ORDER BY id`,
  );
  return rows.map((row) => ({
    id: Number(row.id),
    jobId: row.job_id,
    slots: row.slots,
    concurrency: row.concurrency,
    started: row.started,
    requestedAt: row.requested_at,
    callerJobs: row.caller_jobs,
  }));
}

/** The caller's token has made every Job of the backfill: the controller may resume them. */
export async function markBackfillJobsCreated(db: Queryable, id: number): Promise<void> {
  await db.query(`UPDATE slot_backfills SET caller_jobs = 'created' WHERE id = $1`, [id]);
}

/** Notes how many of a backfill's slots have had their run started (it never goes back). */
export async function markBackfillStarted(db: Queryable, id: number, started: number): Promise<void> {
  await db.query('UPDATE slot_backfills SET started = greatest(started, $2) WHERE id = $1', [id, started]);
}

export async function finishBackfill(db: Queryable, id: number, at: Date): Promise<void> {
  await db.query('UPDATE slot_backfills SET finished_at = $2 WHERE id = $1 AND finished_at IS NULL', [
    id,
    at,
  ]);
}

/** The slots of `slots` that a backfill run of the job was recorded for: a resumed backfill leaves them. */
export async function backfilledSlots(db: Queryable, jobId: number, slots: Date[]): Promise<Set<number>> {
  const { rows } = await db.query<{ scheduled_at: Date }>(
    `SELECT DISTINCT scheduled_at FROM executions
     WHERE job_id = $1 AND scheduled_at = ANY($2::timestamptz[]) AND trigger = 'backfill'`,
    [jobId, slots],
  );
  return new Set(rows.map((row) => row.scheduled_at.getTime()));
}
