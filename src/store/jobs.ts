import type { RunningAttempt } from '../domain/execution';
import type { Job, JobInput } from '../domain/job';
import type { Pool, PoolClient } from 'pg';
import { prepared, type Queryable } from './database';
import { splitListVersion, withListVersion } from './listVersions';

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
}

export const JOB_COLUMNS = `id, name, schedule, command, timeout_s, retry, description, tags, timezone, enabled,
  created_at, updated_at, last_run_at, last_status`;

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
    enabled: row.enabled,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastRun: row.last_run_at,
    lastStatus: row.last_status,
  };
}

/**
 * Where a job came from: the API, a config file (which re-applies it at every start), or a
 * ScheduledJob resource that the controller mirrors.
 */
export type JobSource = 'api' | 'config' | 'kubernetes';

export async function listJobs(db: Queryable): Promise<Job[]> {
  const { rows } = await db.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs ORDER BY id`);
  return rows.map(toJob);
}

/**
 * `listJobs`, each job's attempt in progress, and the version of what it read (see
 * listVersions.ts), all from one snapshot: an attempt starting or ending bumps the version
 * (migration 006). The running attempts come from the small partial index of running rows.
 */
export async function listJobsWithVersion(
  db: Queryable,
): Promise<{ jobs: Job[]; running: Map<number, RunningAttempt>; version: string }> {
  const query = `SELECT ${JOB_COLUMNS}, r.running_id, r.running_started_at, r.running_attempt
    FROM jobs LEFT JOIN (
      SELECT DISTINCT ON (job_id) job_id AS running_job_id, id AS running_id,
             started_at AS running_started_at, attempt AS running_attempt
      FROM executions WHERE status = 'running' ORDER BY job_id, started_at DESC, id DESC
    ) r ON r.running_job_id = jobs.id`;
  const { rows } = await db.query<JobRow & RunningColumns & { list_version: string }>(
    `${withListVersion('jobs', query)} ORDER BY q.id`,
  );
  const { version, rows: jobRows } = splitListVersion(rows, (row) => row.id === null);
  const running = new Map<number, RunningAttempt>();
  for (const row of jobRows) {
    const attempt = runningAttemptOf(row);
    if (attempt) running.set(row.id, attempt);
  }
  return { jobs: jobRows.map(toJob), running, version };
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
): Promise<{ found: { job: Job; running: RunningAttempt | null } | null; version: string }> {
  const query = `SELECT ${JOB_COLUMNS}, r.running_id, r.running_started_at, r.running_attempt
      FROM jobs LEFT JOIN LATERAL (
        SELECT e.id AS running_id, e.started_at AS running_started_at, e.attempt AS running_attempt
        FROM executions e WHERE e.status = 'running' AND e.job_id = jobs.id
        ORDER BY e.started_at DESC, e.id DESC LIMIT 1
      ) r ON true
      WHERE jobs.id = $1`;
  const { rows } = await db.query<JobRow & RunningColumns & { list_version: string }>(
    prepared('job_with_run_and_version', withListVersion('jobs', query), [id]),
  );
  const { version, rows: jobRows } = splitListVersion(rows, (row) => row.id === null);
  const row = jobRows[0];
  return { found: row ? { job: toJob(row), running: runningAttemptOf(row) } : null, version };
}

interface RunningColumns {
  running_id: string | null;
  running_started_at: Date | null;
  running_attempt: number | null;
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

export async function findJobByName(db: Queryable, name: string): Promise<Job | null> {
  const { rows } = await db.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE name = $1`, [name]);
  return rows[0] ? toJob(rows[0]) : null;
}

export async function insertJob(db: Queryable, input: JobInput, source: JobSource = 'api'): Promise<Job> {
  const { rows } = await db.query<JobRow>(
    `INSERT INTO jobs (name, schedule, command, timeout_s, retry, description, tags, timezone, enabled, source)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${JOB_COLUMNS}`,
    jobValues(input, source),
  );
  return toJob(rows[0]!);
}

/**
 * Creates the jobs of `inputs` in one statement (a batch of concurrent creations), by name: a name
 * already taken, or taken earlier in the same batch, creates nothing and is absent from the answer.
 */
export async function insertJobs(db: Queryable, inputs: readonly JobInput[]): Promise<Map<string, Job>> {
  const columns = inputs.map((input) => jobValues(input));
  const column = (i: number) => columns.map((values) => values[i]);
  const { rows } = await db.query<JobRow>(
    prepared(
      'insert_jobs',
      `INSERT INTO jobs (name, schedule, command, timeout_s, retry, description, tags, timezone, enabled, source)
       SELECT name, schedule, command, timeout_s, retry::jsonb, description, tags::jsonb, timezone, enabled, source
       FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[],
                   $8::text[], $9::bool[], $10::text[])
            WITH ORDINALITY AS new (name, schedule, command, timeout_s, retry, description, tags, timezone,
                                    enabled, source, position)
       ORDER BY position
       ON CONFLICT (name) DO NOTHING
       RETURNING ${JOB_COLUMNS}`,
      Array.from({ length: 10 }, (_, i) => column(i)),
    ),
  );
  return new Map(rows.map((row) => [row.name, toJob(row)]));
}

export async function updateJob(db: Queryable, id: number, input: JobInput): Promise<Job | null> {
  const { rows } = await db.query<JobRow>(
    `UPDATE jobs SET name = $2, schedule = $3, command = $4, timeout_s = $5, retry = $6, description = $7,
       tags = $8, timezone = $9, enabled = $10, updated_at = now()
     WHERE id = $1 RETURNING ${JOB_COLUMNS}`,
    [id, ...jobValues(input).slice(0, 9)],
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
    `INSERT INTO jobs (name, schedule, command, timeout_s, retry, description, tags, timezone, enabled, source)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (name) DO UPDATE SET schedule = EXCLUDED.schedule, command = EXCLUDED.command,
       timeout_s = EXCLUDED.timeout_s, retry = EXCLUDED.retry, description = EXCLUDED.description,
       tags = EXCLUDED.tags, timezone = EXCLUDED.timezone, enabled = EXCLUDED.enabled,
       source = EXCLUDED.source, updated_at = now()
     RETURNING ${JOB_COLUMNS}, (xmax = 0) AS inserted`,
    jobValues(input, 'config'),
  );
  const row = rows[0]!;
  return { job: toJob(row), created: row.inserted };
}

export async function setJobEnabled(db: Queryable, id: number, enabled: boolean): Promise<Job | null> {
  const { rows } = await db.query<JobRow>(
    `UPDATE jobs SET enabled = $2, updated_at = now() WHERE id = $1 RETURNING ${JOB_COLUMNS}`,
    [id, enabled],
  );
  return rows[0] ? toJob(rows[0]) : null;
}

export async function deleteJob(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM jobs WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

export async function countJobs(db: Queryable): Promise<{ total: number; enabled: number }> {
  const { rows } = await db.query<{ total: number; enabled: number }>(
    'SELECT count(*)::int AS total, (count(*) FILTER (WHERE enabled))::int AS enabled FROM jobs',
  );
  return rows[0]!;
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
