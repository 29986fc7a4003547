import type { AlertConfig, WebhookFormat } from '../domain/alertConfig';
import type { AlertEvent } from '../domain/execution';
import { prepared, type Queryable } from './database';

/** Who wrote a job's alert configuration: the API, or the config file's shortcuts. */
export type AlertConfigSource = 'api' | 'config';

type StoredWebhook = AlertConfig['webhooks'][number];

interface AlertConfigRow {
  webhooks: StoredWebhook[];
  emails: AlertConfig['emails'];
  /** One per webhook, in order; null for an unsigned one (migration 015). */
  webhook_secrets: (string | null)[];
}

/** A stored webhook as readers see it: `signed: true` in place of its secret. */
function withSignedFlags(webhooks: StoredWebhook[], secrets: (string | null)[]): StoredWebhook[] {
  return webhooks.map((webhook, index) => (secrets[index] ? { ...webhook, signed: true } : webhook));
}

/**
 * The configurations of the given jobs, by job id, with each signed webhook's `secret`: for queueing
 * alerts only. Jobs without one are absent.
 */
export async function findAlertConfigs(db: Queryable, jobIds: number[]): Promise<Map<number, AlertConfig>> {
  if (jobIds.length === 0) return new Map();
  const { rows } = await db.query<AlertConfigRow & { job_id: number }>(
    prepared(
      'find_alert_configs',
      'SELECT job_id, webhooks, emails, webhook_secrets FROM alert_configs WHERE job_id = ANY ($1::int[])',
      [jobIds],
    ),
  );
  return new Map(
    rows.map((row) => [
      row.job_id,
      {
        webhooks: row.webhooks.map((webhook, index) => {
          const secret = row.webhook_secrets[index];
          return secret ? { ...webhook, secret } : webhook;
        }),
        emails: row.emails,
      },
    ]),
  );
}

/**
 * Replaces the configuration of a job in one statement. Returns false when the job does not
 * exist: the insert selects from `jobs`, so a job deleted concurrently cannot leave a stray row.
 */
export async function saveAlertConfig(
  db: Queryable,
  jobId: number,
  config: AlertConfig,
  source: AlertConfigSource,
): Promise<boolean> {
  // A webhook's secret goes to a column of its own; `signed` is derived from it when read.
  const webhooks = config.webhooks.map(({ secret: _secret, signed: _signed, ...webhook }) => webhook);
  const secrets = config.webhooks.map((webhook) => webhook.secret ?? null);
  const { rowCount } = await db.query(
    `INSERT INTO alert_configs (job_id, webhooks, emails, source, updated_at, webhook_secrets)
     SELECT id, $2, $3, $4, now(), $5 FROM jobs WHERE id = $1
     ON CONFLICT (job_id) DO UPDATE SET webhooks = EXCLUDED.webhooks, emails = EXCLUDED.emails,
       source = EXCLUDED.source, updated_at = now(), webhook_secrets = EXCLUDED.webhook_secrets`,
    [jobId, JSON.stringify(webhooks), JSON.stringify(config.emails), source, JSON.stringify(secrets)],
  );
  return (rowCount ?? 0) > 0;
}

/** Removes a job's configuration; with `source`, only when that source wrote it. */
export async function deleteAlertConfig(
  db: Queryable,
  jobId: number,
  source?: AlertConfigSource,
): Promise<void> {
  await db.query('DELETE FROM alert_configs WHERE job_id = $1 AND ($2::text IS NULL OR source = $2)', [
    jobId,
    source ?? null,
  ]);
}

type AlertChannel = 'webhook' | 'email';

/** How a webhook alert is sent, beyond its URL; e-mails have neither. */
interface WebhookDelivery {
  /** The format its configuration names; null (or absent): from the URL. */
  format?: WebhookFormat | null;
  /** The `whsec_` secret it is signed with; null (or absent): unsigned. */
  signingSecret?: string | null;
}

export interface NewOutboxAlert extends WebhookDelivery {
  jobId: number;
  executionId: number;
  event: AlertEvent;
  channel: AlertChannel;
  /** The webhook URL, or the recipients joined by ", ". */
  destination: string;
  /** Everything the senders need, so the alert can be sent after the job is gone. */
  snapshot: unknown;
  createdAt: Date;
  /** Not sent before this (default: at once). */
  notBefore?: Date;
}

/**
 * Queues alerts. The same execution, channel and destination is queued once, so an execution
 * recorded twice (a retried report) does not alert twice.
 */
export async function enqueueAlerts(db: Queryable, alerts: NewOutboxAlert[]): Promise<number> {
  if (alerts.length === 0) return 0;
  const values: unknown[] = [];
  const tuples = alerts.map((alert) => {
    values.push(
      alert.jobId,
      alert.executionId,
      alert.event,
      alert.channel,
      alert.destination,
      JSON.stringify(alert.snapshot),
      alert.format ?? null,
      alert.signingSecret ?? null,
      alert.createdAt,
      alert.notBefore ?? alert.createdAt,
    );
    const n = values.length;
    return `(${Array.from({ length: 10 }, (_, i) => `$${n - 9 + i}`).join(', ')})`;
  });
  const { rowCount } = await db.query(
    `INSERT INTO alert_outbox (job_id, execution_id, event, channel, destination, snapshot, format,
       signing_secret, created_at, next_attempt_at)
     VALUES ${tuples.join(', ')} ON CONFLICT (execution_id, channel, destination) DO NOTHING`,
    values,
  );
  return rowCount ?? 0;
}

export interface OutboxAlert extends Required<WebhookDelivery> {
  id: number;
  jobId: number;
  executionId: number;
  event: AlertEvent;
  channel: AlertChannel;
  destination: string;
  snapshot: unknown;
  /** Attempts so far, this one included. */
  attempts: number;
  createdAt: Date;
}

interface OutboxRow {
  id: string;
  job_id: number;
  execution_id: string;
  event: AlertEvent;
  channel: AlertChannel;
  destination: string;
  snapshot: unknown;
  format: WebhookFormat | null;
  signing_secret: string | null;
  attempts: number;
  created_at: Date;
}

/**
 * Claims up to `limit` due alerts for `workerId` until `leaseUntil`. SKIP LOCKED keeps replicas
 * from waiting on each other's rows, and the lease keeps a row away from every other worker while
 * it is being sent; a worker that dies mid-send loses its claim when the lease runs out.
 */
export async function claimDueAlerts(
  db: Queryable,
  claim: { now: Date; leaseUntil: Date; workerId: string; limit: number },
): Promise<OutboxAlert[]> {
  const { rows } = await db.query<OutboxRow>(
    `WITH due AS (
       SELECT id FROM alert_outbox
       WHERE state = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
       ORDER BY next_attempt_at, id LIMIT $4
       FOR UPDATE SKIP LOCKED)
     UPDATE alert_outbox o SET locked_until = $2, locked_by = $3, attempts = o.attempts + 1
     FROM due WHERE o.id = due.id
     RETURNING o.id, o.job_id, o.execution_id, o.event, o.channel, o.destination, o.snapshot, o.format,
       o.signing_secret, o.attempts, o.created_at`,
    [claim.now, claim.leaseUntil, claim.workerId, claim.limit],
  );
  return rows
    .map((row) => ({
      id: Number(row.id),
      jobId: row.job_id,
      executionId: Number(row.execution_id),
      event: row.event,
      channel: row.channel,
      destination: row.destination,
      snapshot: row.snapshot,
      format: row.format,
      signingSecret: row.signing_secret,
      attempts: row.attempts,
      createdAt: row.created_at,
    }))
    .sort((a, b) => a.id - b.id);
}

/**
 * Records deliveries. Not fenced by the claim: once sent, an alert is delivered whoever holds it.
 * A finished alert needs its signing secret no more: it is not kept for the retention period.
 */
export async function markAlertsDelivered(db: Queryable, ids: number[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE alert_outbox SET state = 'delivered', finished_at = $2, locked_until = NULL, last_error = NULL,
       signing_secret = NULL
     WHERE id = ANY($1::bigint[]) AND state = 'pending'`,
    [ids, at],
  );
}

/**
 * The outcomes below apply only while the claim is still this worker's (same worker, same attempt
 * count), so a worker whose lease ran out cannot overwrite the row's newer state.
 */
interface ClaimRef {
  id: number;
  workerId: string;
  attempts: number;
}

export async function scheduleAlertRetry(
  db: Queryable,
  claim: ClaimRef,
  retryAt: Date,
  error: string,
): Promise<void> {
  await db.query(
    `UPDATE alert_outbox SET next_attempt_at = $4, locked_until = NULL, last_error = $5
     WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND state = 'pending'`,
    [claim.id, claim.workerId, claim.attempts, retryAt, error],
  );
}

export async function markAlertFailed(
  db: Queryable,
  claim: ClaimRef,
  at: Date,
  error: string,
): Promise<void> {
  await db.query(
    `UPDATE alert_outbox SET state = 'failed', finished_at = $4, locked_until = NULL, last_error = $5,
       signing_secret = NULL
     WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND state = 'pending'`,
    [claim.id, claim.workerId, claim.attempts, at, error],
  );
}

/** Gives back a claim that was not tried to the end (shutdown): the attempt does not count. */
export async function releaseAlertClaim(db: Queryable, claim: ClaimRef): Promise<void> {
  await db.query(
    `UPDATE alert_outbox SET locked_until = NULL, attempts = attempts - 1
     WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND state = 'pending'`,
    [claim.id, claim.workerId, claim.attempts],
  );
}

/** Deletes delivered and failed alerts that finished before `cutoff`. */
export async function pruneFinishedAlerts(db: Queryable, cutoff: Date): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM alert_outbox WHERE state <> 'pending' AND finished_at < $1`,
    [cutoff],
  );
  return rowCount ?? 0;
}

/**
 * A job's configuration (empty when it has none), or null when the job does not exist. A signed
 * webhook shows `signed: true`, never its secret.
 */
export async function readJobAlertConfig(db: Queryable, jobId: number): Promise<AlertConfig | null> {
  const { rows } = await db.query<Partial<AlertConfigRow>>(
    `SELECT c.webhooks, c.emails, c.webhook_secrets
     FROM jobs j LEFT JOIN alert_configs c ON c.job_id = j.id WHERE j.id = $1`,
    [jobId],
  );
  if (!rows[0]) return null;
  return {
    webhooks: withSignedFlags(rows[0].webhooks ?? [], rows[0].webhook_secrets ?? []),
    emails: rows[0].emails ?? [],
  };
}

/**
 * The stored webhooks' secrets, one per entry in order (null for an unsigned one), or null when the
 * job does not exist. `lock` holds the job's row until the transaction ends, so two changes of one
 * job's configuration never both start from the same secrets.
 */
export async function readWebhookSecrets(
  db: Queryable,
  jobId: number,
  lock = false,
): Promise<{ url: string; secret: string | null }[] | null> {
  const { rows } = await db.query<Partial<AlertConfigRow>>(
    `SELECT c.webhooks, c.webhook_secrets FROM jobs j LEFT JOIN alert_configs c ON c.job_id = j.id
     WHERE j.id = $1 ${lock ? 'FOR NO KEY UPDATE OF j' : ''}`,
    [jobId],
  );
  if (!rows[0]) return null;
  const secrets = rows[0].webhook_secrets ?? [];
  return (rows[0].webhooks ?? []).map((webhook, index) => ({
    url: webhook.url,
    secret: secrets[index] ?? null,
  }));
}

/** Removes a job's configuration in one statement; returns whether the job exists. */
export async function clearAlertConfig(db: Queryable, jobId: number): Promise<boolean> {
  const { rows } = await db.query<{ exists: boolean }>(
    `WITH removed AS (DELETE FROM alert_configs WHERE job_id = $1)
     SELECT EXISTS (SELECT 1 FROM jobs WHERE id = $1) AS exists`,
    [jobId],
  );
  return rows[0]?.exists ?? false;
}
