import type { Job, JobInput } from '../domain/job';
import type { Queryable } from './database';
import {
  JOB_COLUMNS,
  type JobRow,
  jobValues,
  KEEP_SUSPENSION_IF,
  SLOT_FIELD_COLUMNS,
  slotFieldValues,
  toJob,
} from './jobs';

/** A plain CronJob a CronJobWatch selects, as the controller names it. */
export interface WatchedCronJobRef {
  namespace: string;
  name: string;
  uid: string;
  /** The CronJobWatch (in the same namespace) that selects it. */
  watchedBy: string;
  /** That CronJobWatch's `allowBackfill`. */
  allowBackfill: boolean;
}

/**
 * Creates or updates the job row of a watched CronJob, keyed by its namespace and name, so that it
 * keeps its id (and history) across controller restarts, edits and, with `onRecreate: keep`, a
 * CronJob deleted and created again under the same name. With `restart`, a row of another UID goes
 * first, its executions and slots with it. A job name another job holds fails with a unique violation.
 */
export async function upsertWatchedJob(
  db: Queryable,
  ref: WatchedCronJobRef,
  input: JobInput,
  onRecreate: 'keep' | 'restart',
): Promise<{ job: Job; created: boolean }> {
  if (onRecreate === 'restart') {
    await db.query(
      `DELETE FROM jobs WHERE resource_namespace = $1 AND cron_job_name = $2 AND cron_job_uid IS DISTINCT FROM $3`,
      [ref.namespace, ref.name, ref.uid],
    );
  }
  const { rows } = await db.query<JobRow & { inserted: boolean }>(
    `INSERT INTO jobs (name, schedule, command, timeout_s, retry, description, tags, timezone, enabled, source,
       ${SLOT_FIELD_COLUMNS}, resource_namespace, cron_job_name, cron_job_uid, watched_by, watched_allows_backfill)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
     ON CONFLICT (resource_namespace, cron_job_name) WHERE cron_job_name IS NOT NULL DO UPDATE SET
       name = EXCLUDED.name, schedule = EXCLUDED.schedule, command = EXCLUDED.command,
       timeout_s = EXCLUDED.timeout_s, description = EXCLUDED.description, timezone = EXCLUDED.timezone,
       enabled = EXCLUDED.enabled, ${KEEP_SUSPENSION_IF('EXCLUDED.enabled')}, late_after_s = EXCLUDED.late_after_s,
       catch_up = EXCLUDED.catch_up,
       cron_job_uid = EXCLUDED.cron_job_uid, watched_by = EXCLUDED.watched_by,
       watched_allows_backfill = EXCLUDED.watched_allows_backfill,
       updated_at = CASE WHEN ${CHANGED} THEN now() ELSE jobs.updated_at END
     WHERE ${CHANGED} OR (jobs.cron_job_uid, jobs.watched_by, jobs.watched_allows_backfill)
       IS DISTINCT FROM (EXCLUDED.cron_job_uid, EXCLUDED.watched_by, EXCLUDED.watched_allows_backfill)
     RETURNING ${JOB_COLUMNS}, (xmax = 0) AS inserted`,
    [
      ...jobValues(input, 'cronjob'),
      ...slotFieldValues(input),
      ref.namespace,
      ref.name,
      ref.uid,
      ref.watchedBy,
      ref.allowBackfill,
    ],
  );
  const row = rows[0];
  if (row) return { job: toJob(row), created: row.inserted };
  // Nothing changed: a resync writes nothing.
  const kept = await findWatchedJob(db, ref.namespace, ref.name);
  if (!kept)
    throw new Error(`the job of CronJob ${ref.namespace}/${ref.name} vanished while it was mirrored`);
  return { job: kept, created: false };
}

/** What a watched CronJob's row mirrors of it; a change of any of these is a change of the job. */
const CHANGED = `(jobs.name, jobs.schedule, jobs.command, jobs.timeout_s, jobs.description, jobs.timezone, jobs.enabled,
  jobs.late_after_s, jobs.catch_up)
  IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.schedule, EXCLUDED.command, EXCLUDED.timeout_s, EXCLUDED.description,
  EXCLUDED.timezone, EXCLUDED.enabled, EXCLUDED.late_after_s, EXCLUDED.catch_up)`;

/** Why a watched CronJob's slot saw no Job, as far as Crondeck can know it from outside. */
export const WATCHED_MISSED_REASON =
  'the CronJob created no Job for it: the CronJob controller skipped it (it was down or behind, ' +
  'or more than 100 fire times were missed), or its startingDeadlineSeconds passed before it could start one';

/** Why a watched CronJob's slots are missed while it is suspended: the hold's reason. */
export const WATCHED_SUSPENDED_REASON = 'the CronJob was suspended (spec.suspend: true)';

/** Which of these jobs are watched CronJobs' (a selection holds them): the slot judge reads them so. */
export async function watchedJobIdsAmong(db: Queryable, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ id: number }>(
    `SELECT id FROM jobs WHERE id = ANY ($1::int[]) AND cron_job_name IS NOT NULL AND watched_by IS NOT NULL`,
    [ids],
  );
  return new Set(rows.map((row) => row.id));
}

export async function findWatchedJob(db: Queryable, namespace: string, name: string): Promise<Job | null> {
  const { rows } = await db.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE resource_namespace = $1 AND cron_job_name = $2`,
    [namespace, name],
  );
  return rows[0] ? toJob(rows[0]) : null;
}

/** The watched CronJobs' jobs of `namespace` that a selection still holds. */
export async function listWatchedJobs(db: Queryable, namespace: string): Promise<Job[]> {
  const { rows } = await db.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs
      WHERE resource_namespace = $1 AND cron_job_name IS NOT NULL AND watched_by IS NOT NULL ORDER BY id`,
    [namespace],
  );
  return rows.map(toJob);
}

/** The namespaces that hold a watched CronJob's job a selection still holds. */
export async function namespacesOfWatchedJobs(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ namespace: string }>(
    `SELECT DISTINCT resource_namespace AS namespace FROM jobs
      WHERE cron_job_name IS NOT NULL AND watched_by IS NOT NULL ORDER BY 1`,
  );
  return rows.map((row) => row.namespace);
}

/**
 * Stops watching a CronJob no selection holds any more: its row stays (and with it its runs, until
 * retention), switched off, so that the slot judge holds its slots rather than call them missed.
 */
export async function stopWatching(db: Queryable, namespace: string, name: string): Promise<Job | null> {
  const { rows } = await db.query<JobRow>(
    `UPDATE jobs SET watched_by = NULL, enabled = false, ${KEEP_SUSPENSION_IF('false')}, updated_at = now()
      WHERE resource_namespace = $1 AND cron_job_name = $2 AND watched_by IS NOT NULL
      RETURNING ${JOB_COLUMNS}`,
    [namespace, name],
  );
  return rows[0] ? toJob(rows[0]) : null;
}
