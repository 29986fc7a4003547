import type { RunningAttempt } from '../domain/execution';
import type { Job, JobInput } from '../domain/job';
import type { CatchUp, LastSlot, SlotOutcome } from '../domain/slots';
import type { Pool, PoolClient } from 'pg';
import { prepared, type Queryable } from './database';
import { splitListVersion, withListVersion } from './listVersions';
import { type NamespaceFilter, namespaceCondition } from './namespaceFilter';
import { DISABLED_HOLD_REASON, startLedgerOfCreated } from './slots';

export interface JobRow {
  id: number;
  name: string;
  schedule: string;
  command: string;
  timeout_s: number;
  retry: Job['retry'];
  description: string | null;
  tags: string[];
  timezone: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  last_run_at: Date | null;
  last_status: string | null;
  suspended_reason: string | null;
  suspended_at: Date | null;
  late_after_s: number;
  catch_up: CatchUp | null;
  allow_duplicate_slots: boolean;
  resource_namespace: string | null;
  changed_by: string | null;
  cron_job_name: string | null;
  watched_by: string | null;
  watched_allows_backfill: boolean;
}

export const JOB_COLUMNS = `id, name, schedule, command, timeout_s, retry, description, tags, timezone, enabled,
  created_at, updated_at, last_run_at, last_status, suspended_reason, suspended_at, late_after_s, catch_up,
  allow_duplicate_slots, resource_namespace, changed_by, cron_job_name, watched_by, watched_allows_backfill`;

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    name: row.name,
    schedule: row.schedule,
    command: row.command,
    timeout: row.timeout_s,
    retry: row.retry,
    description: row.description,
    tags: row.tags,
    timezone: row.timezone,
    // The column says what people chose; a suspension by the alert policy holds the job off on top.
    enabled: row.enabled && row.suspended_reason === null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastRun: row.last_run_at,
    lastStatus: row.last_status,
    suspendedReason: row.suspended_reason,
    suspendedAt: row.suspended_at,
    lateAfterSeconds: row.late_after_s,
    catchUp: row.catch_up,
    allowDuplicateSlots: row.allow_duplicate_slots,
    namespace: row.resource_namespace,
    changedBy: row.changed_by,
    // Present only for a watched CronJob's job, so that jobs of every other source read as before.
    ...(row.cron_job_name === null
      ? {}
      : {
          cronJob: {
            namespace: row.resource_namespace ?? '',
            name: row.cron_job_name,
            watchedBy: row.watched_by,
            allowBackfill: row.watched_allows_backfill,
          },
        }),
  };
}

/**
 * Where a job came from: the API, a config file (which re-applies it at every start), a
 * ScheduledJob resource that the controller mirrors, or a plain CronJob a CronJobWatch selects.
 */
export type JobSource = 'api' | 'config' | 'kubernetes' | 'cronjob';

export async function listJobs(db: Queryable): Promise<Job[]> {
  const { rows } = await db.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs ORDER BY id`);
  return rows.map(toJob);
}

/**
 * `listJobs`, each job's attempt in progress, and the version of what it read (see
 * listVersions.ts), all from one snapshot: an attempt starting or ending bumps the version
 * (migration 006). The running attempts come from the small partial index of running rows. With
 * `page`, only the jobs after id `after`, at most `limit` of them (`GET /api/jobs?after=&limit=`).
 */
export async function listJobsWithVersion(
  db: Queryable,
  page: { after: number; limit: number } | null = null,
): Promise<{
  jobs: Job[];
  running: Map<number, RunningAttempt>;
  lastSlots: Map<number, LastSlot>;
  version: string;
}> {
  const query = `SELECT ${JOB_COLUMNS}, r.running_id, r.running_started_at, r.running_attempt, ${LAST_SLOT_COLUMNS}
    FROM jobs LEFT JOIN (
      SELECT DISTINCT ON (job_id) job_id AS running_job_id, id AS running_id,
             started_at AS running_started_at, attempt AS running_attempt
      FROM executions WHERE status = 'running' ORDER BY job_id, started_at DESC, id DESC
    ) r ON r.running_job_id = jobs.id
    ${LAST_SLOT_JOIN}${page ? ' WHERE jobs.id > $1 ORDER BY jobs.id LIMIT $2' : ''}`;
  const { rows } = await db.query<JobRow & RunningColumns & LastSlotColumns & { list_version: string }>(
    `${withListVersion('jobs', query)} ORDER BY q.id`,
    page ? [page.after, page.limit] : [],
  );
  const { version, rows: jobRows } = splitListVersion(rows, (row) => row.id === null);
  const running = new Map<number, RunningAttempt>();
  const lastSlots = new Map<number, LastSlot>();
  for (const row of jobRows) {
    const attempt = runningAttemptOf(row);
    if (attempt) running.set(row.id, attempt);
    const lastSlot = lastSlotOf(row);
    if (lastSlot) lastSlots.set(row.id, lastSlot);
  }
  return { jobs: jobRows.map(toJob), running, lastSlots, version };
}

/**
 * One job, its attempt in progress, and the job list's version (see listVersions.ts), in one round
 * trip and so from one snapshot: a primary-key read, the newest running attempt from the small
 * partial index of running rows, and the version's few slots. Prepared: `GET /api/jobs/:id` runs
 * it whenever its job changed, and planning it anew would cost as much as running it. `found` is
 * null when there is no such job.
 */
export async function findJobWithRun(
  db: Pool | PoolClient,
  id: number,
): Promise<{
  found: { job: Job; running: RunningAttempt | null; lastSlot: LastSlot | null } | null;
  version: string;
}> {
  const query = `SELECT ${JOB_COLUMNS}, r.running_id, r.running_started_at, r.running_attempt, ${LAST_SLOT_COLUMNS}
      FROM jobs LEFT JOIN LATERAL (
        SELECT e.id AS running_id, e.started_at AS running_started_at, e.attempt AS running_attempt
        FROM executions e WHERE e.status = 'running' AND e.job_id = jobs.id
        ORDER BY e.started_at DESC, e.id DESC LIMIT 1
      ) r ON true
      ${LAST_SLOT_JOIN}
      WHERE jobs.id = $1`;
  const { rows } = await db.query<JobRow & RunningColumns & LastSlotColumns & { list_version: string }>(
    prepared('job_with_run_and_version', withListVersion('jobs', query), [id]),
  );
  const { version, rows: jobRows } = splitListVersion(rows, (row) => row.id === null);
  const row = jobRows[0];
  return {
    found: row ? { job: toJob(row), running: runningAttemptOf(row), lastSlot: lastSlotOf(row) } : null,
    version,
  };
}

interface RunningColumns {
  running_id: string | null;
  running_started_at: Date | null;
  running_attempt: number | null;
}

/** Each job's last judged slot (migration 017), kept on the judge's cursor. */
const LAST_SLOT_COLUMNS = 'ls.last_slot_at, ls.last_slot_outcome';
const LAST_SLOT_JOIN = `LEFT JOIN (
      SELECT job_id AS last_slot_job_id, last_slot_at, last_outcome AS last_slot_outcome FROM slot_cursors
    ) ls ON ls.last_slot_job_id = jobs.id`;

interface LastSlotColumns {
  last_slot_at: Date | null;
  last_slot_outcome: SlotOutcome | null;
}

function lastSlotOf(row: LastSlotColumns): LastSlot | null {
  return row.last_slot_at && row.last_slot_outcome
    ? { scheduledAt: row.last_slot_at, outcome: row.last_slot_outcome }
    : null;
}

function runningAttemptOf(row: RunningColumns): RunningAttempt | null {
  if (row.running_id === null) return null;
  return {
    executionId: Number(row.running_id),
    startedAt: row.running_started_at!,
    attempt: row.running_attempt!,
  };
}

export async function findJob(db: Queryable, id: number): Promise<Job | null> {
  const { rows } = await db.query<JobRow>(
    prepared('find_job', `SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [id]),
  );
  return rows[0] ? toJob(rows[0]) : null;
}

/** The jobs of the given ids, by id; ids without a job are absent. */
export async function findJobs(db: Queryable, ids: number[]): Promise<Map<number, Job>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<JobRow>(
    prepared('find_jobs', `SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ANY ($1::int[])`, [ids]),
  );
  return new Map(rows.map((row) => [row.id, toJob(row)]));
}

/**
 * Every job's id and row version: the row's `xmin`, which every write of the row changes (a new
 * version of a row is written by its own transaction) and which no two versions of one row share.
 * Comparing them with those of a last read tells which jobs changed since, however the writes'
 * commits were ordered and whoever wrote them, without reading the jobs themselves.
 */
export async function listJobRowVersions(db: Queryable): Promise<Map<number, string>> {
  const { rows } = await db.query<{ id: number; row_version: string }>(
    prepared('list_job_row_versions', 'SELECT id, xmin::text AS row_version FROM jobs', []),
  );
  return new Map(rows.map((row) => [row.id, row.row_version]));
}

/** What `listJobsWrittenSince` answers. */
export interface JobsWritten {
  /** The row version (`listJobRowVersions`) of each job written since the horizon given, by id. */
  versions: Map<number, string>;
  /** How many jobs there are, in the same snapshot. */
  count: number;
  /** Every transaction older than this one had ended when read: the horizon of the next read. */
  horizon: string;
}

/** A row written by a transaction not older than the horizon `$1` (any row when it is null). */
const WRITTEN_SINCE = '$1::xid8 IS NULL OR age(xmin) <= age(xid($1::xid8))';

/**
 * The jobs whose row was written by a transaction not older than `horizon` (every job when it is
 * null), read in one pass over the table with the number of jobs and the next horizon: the oldest
 * transaction still running (`pg_snapshot_xmin`). A write that commits after this read has a
 * transaction at least that new, whatever the order of the commits, so the next read with that
 * horizon finds it; a job is read again when its write was in flight or raced this read, never
 * missed. Deletions leave no row: a caller tells them by the count.
 */
export async function listJobsWrittenSince(db: Queryable, horizon: string | null): Promise<JobsWritten> {
  const { rows } = await db.query<{ count: number; ids: number[]; versions: string[]; horizon: string }>(
    prepared(
      'list_jobs_written_since',
      // age() counts transactions back from now, which orders xids across their wraparound. The
      // versions are spelled out for the rows written only: a third of the pass at 50,000 jobs.
      `SELECT count(*)::int AS count,
         coalesce(array_agg(id ORDER BY id) FILTER (WHERE ${WRITTEN_SINCE}), '{}') AS ids,
         coalesce(array_agg(xmin::text ORDER BY id) FILTER (WHERE ${WRITTEN_SINCE}), '{}') AS versions,
         pg_snapshot_xmin(pg_current_snapshot())::text AS horizon
       FROM jobs`,
      [horizon],
    ),
  );
  const row = rows[0]!;
  return {
    versions: new Map(row.ids.map((id, i) => [id, row.versions[i]!])),
    count: row.count,
    horizon: row.horizon,
  };
}

/** A job as stored, with the version of its row (`listJobRowVersions`). */
export interface StoredJob {
  job: Job;
  rowVersion: string;
}

/** The jobs of the given ids with their row versions (`listJobRowVersions`); ids without a job are absent. */
export async function findJobsWithRowVersions(db: Queryable, ids: number[]): Promise<StoredJob[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<JobRow & { row_version: string }>(
    prepared(
      'find_jobs_with_row_versions',
      `SELECT ${JOB_COLUMNS}, xmin::text AS row_version FROM jobs WHERE id = ANY ($1::int[]) ORDER BY id`,
      [ids],
    ),
  );
  return rows.map((row) => ({ job: toJob(row), rowVersion: row.row_version }));
}

export async function findJobByName(db: Queryable, name: string): Promise<Job | null> {
  const { rows } = await db.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE name = $1`, [name]);
  return rows[0] ? toJob(rows[0]) : null;
}

export async function insertJob(db: Queryable, input: JobInput, source: JobSource = 'api'): Promise<Job> {
  const { rows } = await db.query<JobRow>(
    `INSERT INTO jobs (name, schedule, command, timeout_s, retry, description, tags, timezone, enabled, source,
       ${SLOT_FIELD_COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${JOB_COLUMNS}`,
    [...jobValues(input, source), ...slotFieldValues(input)],
  );
  return toJob(rows[0]!);
}

/** A job to create, and when its slot cursor is first due (see `startLedgerOfCreated`). */
export interface JobCreation {
  input: JobInput;
  firstDueAt: Date | null;
  /** Kubernetes mode: the ScheduledJob the job is written to, known before it exists. */
  resource?: { namespace: string; name: string } | null;
  /** Who creates it (SERVICE_AUTH=kubernetes), else null. */
  changedBy?: string | null;
}

/**
 * Creates the jobs of `creations` and starts their slot ledger (slots.ts) at `at`, in one
 * statement, which commits alone (a batch of concurrent creations: one round trip, one commit).
 * Answers the created jobs, with their row versions, by name: a name already taken, or taken
 * earlier in the same batch, creates nothing and is absent from the answer.
 */
export async function createJobs(
  db: Queryable,
  creations: readonly JobCreation[],
  at: Date,
): Promise<Map<string, StoredJob>> {
  const { rows } = await db.query<JobRow & { row_version: string }>(
    prepared(
      'create_jobs',
      // The batch travels as one JSON array, which JSON.stringify writes natively: node-postgres
      // renders an array parameter as an array literal element by element, which for one array
      // per column was a tenth of what a creation allocated. retry, tags and catchUp go in as
      // JSON values, not quoted twice as JSON text inside text. A JSON null is SQL NULL here.
      `WITH given AS (
         SELECT * FROM ROWS FROM (json_to_recordset($1::json) AS (name text, schedule text, command text,
                timeout_s int, retry jsonb, description text, tags jsonb, timezone text, enabled bool, source text,
                late_after_s int, catch_up jsonb, allow_duplicate_slots bool, due_at timestamptz,
                resource_namespace text, resource_name text, changed_by text))
           WITH ORDINALITY AS new (name, schedule, command, timeout_s, retry, description, tags, timezone,
                                   enabled, source, late_after_s, catch_up, allow_duplicate_slots, due_at,
                                   resource_namespace, resource_name, changed_by, position)
       ),
       created AS (
         INSERT INTO jobs (name, schedule, command, timeout_s, retry, description, tags, timezone, enabled, source,
           ${SLOT_FIELD_COLUMNS}, resource_namespace, resource_name, changed_by)
         SELECT name, schedule, command, timeout_s, retry, description, tags, timezone, enabled, source,
           late_after_s, catch_up, allow_duplicate_slots, resource_namespace, resource_name, changed_by
         FROM given ORDER BY position
         ON CONFLICT (name) DO NOTHING
         RETURNING ${JOB_COLUMNS}, xmin::text AS row_version
       ),
       ${startLedgerOfCreated(
         '$2::timestamptz',
         '$3::text',
         // The first of a name is the one created.
         '(SELECT DISTINCT ON (name) name, due_at FROM given ORDER BY name, position)',
       )}
       SELECT * FROM created`,
      [
        JSON.stringify(
          creations.map(({ input, firstDueAt, resource, changedBy }) => ({
            ...jobRecord(input),
            due_at: firstDueAt,
            resource_namespace: resource?.namespace ?? null,
            resource_name: resource?.name ?? null,
            changed_by: changedBy ?? null,
          })),
        ),
        at,
        DISABLED_HOLD_REASON,
      ],
    ),
  );
  return new Map(rows.map((row) => [row.name, { job: toJob(row), rowVersion: row.row_version }]));
}

/**
 * The row of a job created through the API, as `createJobs` sends it: its columns by name, JSON
 * values as they are.
 */
function jobRecord(input: JobInput) {
  return {
    name: input.name,
    schedule: input.schedule,
    command: input.command,
    timeout_s: input.timeout,
    retry: input.retry,
    description: input.description,
    tags: input.tags,
    timezone: input.timezone,
    enabled: input.enabled,
    source: 'api' satisfies JobSource,
    late_after_s: input.lateAfterSeconds,
    catch_up: input.catchUp,
    allow_duplicate_slots: input.allowDuplicateSlots,
  };
}

/** Replaces a job's fields; `changedBy` names who did (SERVICE_AUTH=kubernetes), else null. */
export async function updateJob(
  db: Queryable,
  id: number,
  input: JobInput,
  changedBy: string | null = null,
): Promise<Job | null> {
  const { rows } = await db.query<JobRow>(
    `UPDATE jobs SET name = $2, schedule = $3, command = $4, timeout_s = $5, retry = $6, description = $7,
       tags = $8, timezone = $9, enabled = $10, ${KEEP_SUSPENSION_IF('$10')}, late_after_s = $11, catch_up = $12,
       allow_duplicate_slots = $13, changed_by = $14, updated_at = now()
     WHERE id = $1 RETURNING ${JOB_COLUMNS}`,
    [id, ...jobValues(input).slice(0, 9), ...slotFieldValues(input), changedBy],
  );
  return rows[0] ? toJob(rows[0]) : null;
}

/**
 * Creates or replaces the job of that name, as a config file declares it. `xmax = 0` tells an
 * inserted row from an updated one.
 */
export async function upsertJobByName(
  db: Queryable,
  input: JobInput,
): Promise<{ job: Job; created: boolean }> {
  const { rows } = await db.query<JobRow & { inserted: boolean }>(
    `INSERT INTO jobs (name, schedule, command, timeout_s, retry, description, tags, timezone, enabled, source,
       ${SLOT_FIELD_COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (name) DO UPDATE SET schedule = EXCLUDED.schedule, command = EXCLUDED.command,
       timeout_s = EXCLUDED.timeout_s, retry = EXCLUDED.retry, description = EXCLUDED.description,
       tags = EXCLUDED.tags, timezone = EXCLUDED.timezone, enabled = EXCLUDED.enabled,
       ${KEEP_SUSPENSION_IF('EXCLUDED.enabled')}, source = EXCLUDED.source, ${SLOT_FIELDS_FROM_EXCLUDED},
       updated_at = now()
     RETURNING ${JOB_COLUMNS}, (xmax = 0) AS inserted`,
    [...jobValues(input, 'config'), ...slotFieldValues(input)],
  );
  const row = rows[0]!;
  return { job: toJob(row), created: row.inserted };
}

/**
 * A suspension by the alert policy lasts while the job stays switched on: a write that switches it
 * off ends it (the person's choice says it all). `enabled` is the SQL of the new value.
 */
export const KEEP_SUSPENSION_IF = (enabled: string) =>
  `suspended_reason = CASE WHEN ${enabled} THEN jobs.suspended_reason END,
   suspended_at = CASE WHEN ${enabled} THEN jobs.suspended_at END`;

/**
 * The toggle: a person switching the job on or off also ends a suspension by the alert policy.
 * `changedBy` names who did (SERVICE_AUTH=kubernetes), else null.
 */
export async function setJobEnabled(
  db: Queryable,
  id: number,
  enabled: boolean,
  changedBy: string | null = null,
): Promise<Job | null> {
  const { rows } = await db.query<JobRow>(
    `UPDATE jobs SET enabled = $2, suspended_reason = NULL, suspended_at = NULL, changed_by = $3, updated_at = now()
     WHERE id = $1 RETURNING ${JOB_COLUMNS}`,
    [id, enabled, changedBy],
  );
  return rows[0] ? toJob(rows[0]) : null;
}

/**
 * Suspends jobs after failing runs (the alert policy), each with its reason. Only a job that is
 * switched on and not suspended yet is: the ids answered are those this write suspended.
 */
export async function suspendJobs(
  db: Queryable,
  suspensions: readonly { jobId: number; reason: string }[],
  at: Date,
): Promise<number[]> {
  if (suspensions.length === 0) return [];
  // The slot ledger judges the slots of a suspension `suspended` (migration 017's holds).
  const { rows } = await db.query<{ id: number }>(
    `WITH suspended AS (
       UPDATE jobs j SET suspended_reason = s.reason, suspended_at = $3
         FROM unnest($1::int[], $2::text[]) AS s(job_id, reason)
        WHERE j.id = s.job_id AND j.enabled AND j.suspended_reason IS NULL
       RETURNING j.id, s.reason
     ),
     held AS (
       INSERT INTO slot_holds (job_id, kind, from_at, reason)
       SELECT id, 'suspended', $3, 'the job was suspended by its alert policy: ' || reason FROM suspended
       ON CONFLICT ((coalesce(job_id, 0)), kind) WHERE until_at IS NULL DO NOTHING
     )
     SELECT id FROM suspended`,
    [suspensions.map((each) => each.jobId), suspensions.map((each) => each.reason), at],
  );
  return rows.map((row) => row.id);
}

/** Ends a job's suspension (someone ran it by hand): the job resumed, or null when it was not suspended. */
export async function resumeSuspendedJob(db: Queryable, id: number): Promise<Job | null> {
  const { rows } = await db.query<JobRow>(
    `UPDATE jobs SET suspended_reason = NULL, suspended_at = NULL
      WHERE id = $1 AND suspended_reason IS NOT NULL RETURNING ${JOB_COLUMNS}`,
    [id],
  );
  return rows[0] ? toJob(rows[0]) : null;
}

export async function deleteJob(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM jobs WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

/** How many jobs there are, and how many of them fire; of some namespaces only with `filter`. */
export async function countJobs(
  db: Queryable,
  filter: NamespaceFilter | null = null,
): Promise<{ total: number; enabled: number }> {
  const values: unknown[] = [];
  const where = filter ? `WHERE ${namespaceCondition('', filter, values)}` : '';
  const { rows } = await db.query<{ total: number; enabled: number }>(
    `SELECT count(*)::int AS total,
       (count(*) FILTER (WHERE enabled AND suspended_reason IS NULL))::int AS enabled FROM jobs ${where}`,
    values,
  );
  return rows[0]!;
}

/**
 * The namespaces that hold jobs, a job not written to one yet counting as in `home` (see
 * NamespaceFilter); none outside Kubernetes mode.
 */
export async function listJobNamespaces(db: Queryable, home: string | null): Promise<string[]> {
  const { rows } = await db.query<{ namespace: string }>(
    `SELECT DISTINCT coalesce(resource_namespace, $1::text) AS namespace FROM jobs
      WHERE coalesce(resource_namespace, $1::text) IS NOT NULL ORDER BY 1`,
    [home],
  );
  return rows.map((row) => row.namespace);
}

export function jobValues(input: JobInput, source: JobSource = 'api'): unknown[] {
  return [
    input.name,
    input.schedule,
    input.command,
    input.timeout,
    input.retry === null ? null : JSON.stringify(input.retry),
    input.description,
    JSON.stringify(input.tags),
    input.timezone,
    input.enabled,
    source,
  ];
}

/** The slot ledger's job fields (migration 017), written after those of `jobValues`. */
export const SLOT_FIELD_COLUMNS = 'late_after_s, catch_up, allow_duplicate_slots';
export const SLOT_FIELDS_FROM_EXCLUDED = `late_after_s = EXCLUDED.late_after_s, catch_up = EXCLUDED.catch_up,
  allow_duplicate_slots = EXCLUDED.allow_duplicate_slots`;

export function slotFieldValues(input: JobInput): unknown[] {
  return [
    input.lateAfterSeconds,
    input.catchUp === null ? null : JSON.stringify(input.catchUp),
    input.allowDuplicateSlots,
  ];
}
