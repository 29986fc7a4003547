import type { Job, JobInput } from '../domain/job';
import type { Queryable } from './database';
import {
  JOB_COLUMNS,
  type JobRow,
  jobValues,
  KEEP_SUSPENSION_IF,
  SLOT_FIELD_COLUMNS,
  SLOT_FIELDS_FROM_EXCLUDED,
  slotFieldValues,
  toJob,
} from './jobs';

/** A ScheduledJob, as the controller names it. */
export interface ResourceRef {
  namespace: string;
  name: string;
  uid: string;
  /** Its `metadata.generation` as read (the spec's version); undefined writes whatever it is. */
  generation?: number;
}

/**
 * Whether a mirror of `$17` (generation) of `$13` (uid) may overwrite the row: each generation of a
 * resource is mirrored once, and an older one never. The controller reconciles from its informer's
 * cache, which can still hold the generation before a change the API made (row and ScheduledJob
 * together): mirroring that stale spec would undo the change in the row, and the API's next write
 * of the row (a toggle) would carry it back to the ScheduledJob, losing the change for good.
 */
const NEWER_GENERATION = (row: string) =>
  `($17::bigint IS NULL OR ${row}resource_generation IS NULL OR ${row}resource_uid IS DISTINCT FROM $13
    OR ${row}resource_generation < $17::bigint)`;

/**
 * Creates or updates the row that mirrors a ScheduledJob, keyed by its namespace and name, so the
 * job keeps its id across controller restarts and edits. A change that did not come through the
 * API (whose write made the row match already) was someone's the service cannot name: `changed_by`
 * becomes null. A resource that the REST API created
 * carries the id of the row the API inserted first (`adoptId`): that row is taken over rather than
 * a second one inserted. A name already used by another job fails with a unique violation.
 */
export async function upsertJobForResource(
  db: Queryable,
  ref: ResourceRef,
  input: JobInput,
  adoptId: number | null,
): Promise<{ job: Job; created: boolean }> {
  const values = [
    ...jobValues(input, 'kubernetes'),
    ref.namespace,
    ref.name,
    ref.uid,
    ...slotFieldValues(input),
    ref.generation ?? null,
  ];
  if (adoptId !== null) {
    const { rows } = await db.query<JobRow>(
      `UPDATE jobs SET name = $1, schedule = $2, command = $3, timeout_s = $4, retry = $5, description = $6,
         tags = $7, timezone = $8, enabled = $9, ${KEEP_SUSPENSION_IF('$9::boolean')}, source = $10,
         resource_namespace = $11, resource_name = $12,
         resource_uid = $13, late_after_s = $14, catch_up = $15, allow_duplicate_slots = $16,
         changed_by = CASE WHEN ${CHANGED} THEN NULL ELSE changed_by END,
         updated_at = CASE WHEN ${CHANGED} THEN now() ELSE updated_at END,
         resource_generation = $17
       WHERE id = $18 AND (resource_name IS NULL OR (resource_namespace = $11 AND resource_name = $12))
         AND ${NEWER_GENERATION('')}
       RETURNING ${JOB_COLUMNS}`,
      [...values, adoptId],
    );
    if (rows[0]) return { job: toJob(rows[0]), created: false };
  }
  const { rows } = await db.query<JobRow & { inserted: boolean }>(
    `INSERT INTO jobs (name, schedule, command, timeout_s, retry, description, tags, timezone, enabled, source,
       resource_namespace, resource_name, resource_uid, ${SLOT_FIELD_COLUMNS}, resource_generation)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
     ON CONFLICT (resource_namespace, resource_name) DO UPDATE SET name = EXCLUDED.name,
       schedule = EXCLUDED.schedule, command = EXCLUDED.command, timeout_s = EXCLUDED.timeout_s,
       retry = EXCLUDED.retry, description = EXCLUDED.description, tags = EXCLUDED.tags,
       timezone = EXCLUDED.timezone, enabled = EXCLUDED.enabled, ${KEEP_SUSPENSION_IF('EXCLUDED.enabled')},
       resource_uid = EXCLUDED.resource_uid, ${SLOT_FIELDS_FROM_EXCLUDED},
       changed_by = CASE WHEN ${CHANGED_EXCLUDED} THEN NULL ELSE jobs.changed_by END,
       updated_at = CASE WHEN ${CHANGED_EXCLUDED} THEN now() ELSE jobs.updated_at END,
       resource_generation = EXCLUDED.resource_generation
     WHERE ${NEWER_GENERATION('jobs.')}
     RETURNING ${JOB_COLUMNS}, (xmax = 0) AS inserted`,
    values,
  );
  const row = rows[0];
  if (row) return { job: toJob(row), created: row.inserted };
  // A generation mirrored already (or an older one): the row stays as it is.
  const kept = await findJobForResource(db, ref.namespace, ref.name);
  if (!kept)
    throw new Error(`the job of ScheduledJob ${ref.namespace}/${ref.name} vanished while it was mirrored`);
  return { job: kept, created: false };
}

/** True when an update changes what the job is; a resync that changes nothing keeps `updatedAt`. */
const CHANGED = `(name, schedule, command, timeout_s, retry, description, tags, timezone, enabled,
  late_after_s, catch_up, allow_duplicate_slots)
  IS DISTINCT FROM ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, $8, $9, $14, $15::jsonb, $16)`;
const CHANGED_EXCLUDED = `(jobs.name, jobs.schedule, jobs.command, jobs.timeout_s, jobs.retry, jobs.description,
  jobs.tags, jobs.timezone, jobs.enabled, jobs.late_after_s, jobs.catch_up, jobs.allow_duplicate_slots)
  IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.schedule, EXCLUDED.command, EXCLUDED.timeout_s, EXCLUDED.retry,
  EXCLUDED.description, EXCLUDED.tags, EXCLUDED.timezone, EXCLUDED.enabled, EXCLUDED.late_after_s,
  EXCLUDED.catch_up, EXCLUDED.allow_duplicate_slots)`;

export async function findJobForResource(
  db: Queryable,
  namespace: string,
  name: string,
): Promise<Job | null> {
  const { rows } = await db.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM jobs WHERE resource_namespace = $1 AND resource_name = $2`,
    [namespace, name],
  );
  return rows[0] ? toJob(rows[0]) : null;
}

/** The ScheduledJob a job mirrors, or null for a job of the API or a config file not yet mirrored. */
export async function resourceOfJob(db: Queryable, jobId: number): Promise<Omit<ResourceRef, 'uid'> | null> {
  const { rows } = await db.query<{ resource_namespace: string | null; resource_name: string | null }>(
    'SELECT resource_namespace, resource_name FROM jobs WHERE id = $1',
    [jobId],
  );
  const row = rows[0];
  return row?.resource_namespace && row.resource_name
    ? { namespace: row.resource_namespace, name: row.resource_name }
    : null;
}

/** Removes the row of a deleted ScheduledJob (its executions go with it); false when there was none. */
/** Deletes the job of a resource; resolves to its id, or null when there was none. */
export async function deleteJobForResource(
  db: Queryable,
  namespace: string,
  name: string,
): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>(
    'DELETE FROM jobs WHERE resource_namespace = $1 AND resource_name = $2 RETURNING id',
    [namespace, name],
  );
  return rows[0]?.id ?? null;
}

/**
 * A job's API name and the ScheduledJob it is written to, as far as known (both null for a job not
 * written to one yet); null when there is no such job. What a caller's access to it is checked on.
 */
export async function findJobResource(
  db: Queryable,
  jobId: number,
): Promise<{
  name: string;
  namespace: string | null;
  resourceName: string | null;
  cronJobName: string | null;
} | null> {
  const { rows } = await db.query<{
    name: string;
    resource_namespace: string | null;
    resource_name: string | null;
    cron_job_name: string | null;
  }>('SELECT name, resource_namespace, resource_name, cron_job_name FROM jobs WHERE id = $1', [jobId]);
  const row = rows[0];
  return row
    ? {
        name: row.name,
        namespace: row.resource_namespace,
        resourceName: row.resource_name,
        cronJobName: row.cron_job_name,
      }
    : null;
}
