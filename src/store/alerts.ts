import type { AlertConfig, WebhookFormat } from '../domain/alertConfig';
import type { DestinationEvent } from '../domain/alertEvents';
import type { AlertPolicy, PolicyState } from '../domain/alertPolicy';
import { prepared, type Queryable } from './database';

/** Who wrote a job's alert configuration: the API, or the config file's shortcuts. */
export type AlertConfigSource = 'api' | 'config';

type StoredWebhook = AlertConfig['webhooks'][number];

interface AlertConfigRow {
  webhooks: StoredWebhook[];
  emails: AlertConfig['emails'];
  /** One per webhook, in order; null for an unsigned one (migration 015). */
  webhook_secrets: (string | null)[];
  policy: AlertPolicy | null;
}

/**
 * A stored row as the domain has it: no `policy` key at all when there is none (spec's shape), and
 * each webhook as `webhookOf` makes it from its stored entry and its secret.
 */
function configOf(
  row: Partial<AlertConfigRow>,
  webhookOf: (webhook: StoredWebhook, secret: string | null) => StoredWebhook,
): AlertConfig {
  const secrets = row.webhook_secrets ?? [];
  const config: AlertConfig = {
    webhooks: (row.webhooks ?? []).map((webhook, index) => webhookOf(webhook, secrets[index] ?? null)),
    emails: row.emails ?? [],
  };
  if (row.policy) config.policy = row.policy;
  return config;
}

/**
 * The configurations of the given jobs, by job id, with each signed webhook's `secret`: for queueing
 * alerts only. Jobs without one are absent.
 */
export async function findAlertConfigs(db: Queryable, jobIds: number[]): Promise<Map<number, AlertConfig>> {
  if (jobIds.length === 0) return new Map();
  const { rows } = await db.query<AlertConfigRow & { job_id: number }>(
    prepared(
      'find_alert_configs_with_policy',
      'SELECT job_id, webhooks, emails, webhook_secrets, policy FROM alert_configs WHERE job_id = ANY ($1::int[])',
      [jobIds],
    ),
  );
  return new Map(
    rows.map((row) => [
      row.job_id,
      configOf(row, (webhook, secret) => (secret ? { ...webhook, secret } : webhook)),
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
    `INSERT INTO alert_configs (job_id, webhooks, emails, policy, source, updated_at, webhook_secrets)
     SELECT id, $2, $3, $5, $4, now(), $6 FROM jobs WHERE id = $1
     ON CONFLICT (job_id) DO UPDATE SET webhooks = EXCLUDED.webhooks, emails = EXCLUDED.emails,
       policy = EXCLUDED.policy, source = EXCLUDED.source, updated_at = now(),
       webhook_secrets = EXCLUDED.webhook_secrets`,
    [
      jobId,
      JSON.stringify(webhooks),
      JSON.stringify(config.emails),
      source,
      config.policy ? JSON.stringify(config.policy) : null,
      JSON.stringify(secrets),
    ],
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

/**
 * What becomes of a queued alert: `pending` until delivered (or failed); `muted` (a maintenance
 * window) and `suppressed` (a policy threshold) are never sent, and kept as history with a note.
 */
export type NewAlertState = 'pending' | 'muted' | 'suppressed';

/** How a webhook alert is sent, beyond its URL; e-mails have neither. */
interface WebhookDelivery {
  /** The format its configuration names; null (or absent): from the URL. */
  format?: WebhookFormat | null;
  /** The `whsec_` secret it is signed with; null (or absent): unsigned. */
  signingSecret?: string | null;
}

export interface NewOutboxAlert extends WebhookDelivery {
  jobId: number;
  /** The execution the alert is about; null for an event that is not (an overrun on a cluster). */
  executionId: number | null;
  /**
   * What the alert is about, e.g. `execution:42`, `recovered:42`, `overrun:run:<uid>`: one alert per
   * subject and destination is ever queued, whatever records or raises it again.
   */
  subject: string;
  event: DestinationEvent;
  channel: AlertChannel;
  /** The webhook URL, or the recipients joined by ", ". */
  destination: string;
  /** Everything the senders need, so the alert can be sent after the job is gone. */
  snapshot: unknown;
  createdAt: Date;
  state: NewAlertState;
  /** Why a muted or suppressed alert was not sent. */
  note: string | null;
  /** Not sent before this (default: at once). */
  notBefore?: Date;
}

const OUTBOX_COLUMNS_PER_ROW = 13;

/**
 * Queues alerts. The same subject, channel and destination is queued once, so an execution
 * recorded twice (a retried report) or a run looked at again after a restart does not alert twice.
 * Muted and suppressed rows are finished at once (pruned like delivered ones).
 */
export async function enqueueAlerts(db: Queryable, alerts: NewOutboxAlert[]): Promise<number> {
  if (alerts.length === 0) return 0;
  const values: unknown[] = [];
  const tuples = alerts.map((alert) => {
    values.push(
      alert.jobId,
      alert.executionId,
      alert.subject,
      alert.event,
      alert.channel,
      alert.destination,
      JSON.stringify(alert.snapshot),
      alert.state,
      alert.note,
      alert.format ?? null,
      // A muted or suppressed alert is finished at once: like a delivered one, it keeps no secret.
      alert.state === 'pending' ? (alert.signingSecret ?? null) : null,
      alert.createdAt,
      alert.notBefore ?? alert.createdAt,
    );
    const at = (k: number) => `$${values.length - OUTBOX_COLUMNS_PER_ROW + k}`;
    const columns = Array.from({ length: OUTBOX_COLUMNS_PER_ROW }, (_, k) => at(k + 1));
    const [state, createdAt] = [at(8), at(12)];
    return `(${columns.join(', ')}, CASE WHEN ${state} = 'pending' THEN NULL ELSE ${createdAt}::timestamptz END)`;
  });
  const { rowCount } = await db.query(
    `INSERT INTO alert_outbox (job_id, execution_id, subject, event, channel, destination, snapshot, state, note,
       format, signing_secret, created_at, next_attempt_at, finished_at)
     VALUES ${tuples.join(', ')} ON CONFLICT (subject, channel, destination) DO NOTHING`,
    values,
  );
  return rowCount ?? 0;
}

export interface OutboxAlert extends Required<WebhookDelivery> {
  id: number;
  jobId: number;
  executionId: number | null;
  event: DestinationEvent;
  channel: AlertChannel;
  destination: string;
  /** The server its send waits on (`DESTINATION_KEY`): what a per-destination limit counts. */
  destinationKey: string;
  snapshot: unknown;
  /** Attempts so far, this one included. */
  attempts: number;
  createdAt: Date;
}

interface OutboxRow {
  id: string;
  job_id: number;
  execution_id: string | null;
  event: DestinationEvent;
  channel: AlertChannel;
  destination: string;
  destination_key: string;
  snapshot: unknown;
  format: WebhookFormat | null;
  signing_secret: string | null;
  attempts: number;
  created_at: Date;
}

/**
 * The server an alert's send waits on, as the claim ranks alerts by it and returns it for the
 * worker's count of sends in flight: a webhook's scheme, host and port (lower-cased, without the
 * user name, path, query or fragment: a receiver that never answers hangs every path of it alike),
 * and for every e-mail the one SMTP server they all go through. Plain string functions, not a
 * regular expression: the claim computes it for every due alert, each time it looks.
 */
const DESTINATION_KEY = `CASE WHEN channel = 'email' THEN 'email' ELSE lower(
    split_part(destination, '/', 1) || '//' ||
    reverse(split_part(reverse(split_part(split_part(split_part(destination, '/', 3), '?', 1), '#', 1)), '@', 1))
  ) END`;

/** No limit per destination: more than any claim takes. */
const UNLIMITED = 2_147_483_647;

/** How many sends each destination may have in flight, and which a worker has there already. */
interface DestinationLimit {
  perDestination: number;
  /** The worker's sends in flight. */
  inFlight: readonly Pick<OutboxAlert, 'destination' | 'destinationKey'>[];
}

/**
 * Claims up to `limit` due alerts for `workerId` until `leaseUntil`. SKIP LOCKED keeps replicas
 * from waiting on each other's rows, and the lease keeps a row away from every other worker while
 * it is being sent; a worker that dies mid-send loses its claim when the lease runs out.
 *
 * With `destinations`, no destination gets more than its share, oldest alerts first: a destination
 * already at its limit is passed over, so a receiver that never answers holds at most that many of
 * the worker's sends and the alerts of every other destination still get the rest. The claim looks
 * at the oldest `limit` due alerts of the destinations with room left, locking them (a bounded look,
 * not the whole queue: it runs as often as sends finish); one destination's long queue can fill that
 * look, and once the claim took that destination to its limit, claiming again looks past it.
 */
export async function claimDueAlerts(
  db: Queryable,
  claim: {
    now: Date;
    leaseUntil: Date;
    workerId: string;
    limit: number;
    destinations?: DestinationLimit;
  },
): Promise<OutboxAlert[]> {
  const perDestination = claim.destinations?.perDestination ?? UNLIMITED;
  const inFlight = claim.destinations?.inFlight ?? [];
  const sends = new Map<string, number>();
  for (const { destinationKey } of inFlight) sends.set(destinationKey, (sends.get(destinationKey) ?? 0) + 1);
  const full = [...sends].filter(([, count]) => count >= perDestination).map(([key]) => key);
  // The URLs of the sends of a full destination: most alerts queued behind them have the same one,
  // and passing over those compares text, not the key computed for each.
  const fullUrls = [
    ...new Set(
      inFlight.filter((alert) => full.includes(alert.destinationKey)).map((alert) => alert.destination),
    ),
  ];
  const { rows } = await db.query<OutboxRow>(
    `WITH due AS (
       SELECT id, next_attempt_at, ${DESTINATION_KEY} AS destination_key FROM alert_outbox
       WHERE state = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
         AND destination <> ALL ($9::text[]) AND ${DESTINATION_KEY} <> ALL ($8::text[])
       ORDER BY next_attempt_at, id LIMIT $4
       FOR UPDATE SKIP LOCKED),
     ranked AS (
       SELECT due.id,
              row_number() OVER (PARTITION BY due.destination_key ORDER BY due.next_attempt_at, due.id)
                + coalesce(busy.sends, 0) AS place
       FROM due LEFT JOIN unnest($5::text[], $6::int[]) AS busy(destination_key, sends)
         ON busy.destination_key = due.destination_key)
     UPDATE alert_outbox o SET locked_until = $2, locked_by = $3, attempts = o.attempts + 1
     FROM ranked WHERE o.id = ranked.id AND ranked.place <= $7
     RETURNING o.id, o.job_id, o.execution_id, o.event, o.channel, o.destination, ${DESTINATION_KEY} AS destination_key,
       o.snapshot, o.format, o.signing_secret, o.attempts, o.created_at`,
    [
      claim.now,
      claim.leaseUntil,
      claim.workerId,
      claim.limit,
      [...sends.keys()],
      [...sends.values()],
      perDestination,
      full,
      fullUrls,
    ],
  );
  return rows
    .map((row) => ({
      id: Number(row.id),
      jobId: row.job_id,
      executionId: row.execution_id === null ? null : Number(row.execution_id),
      event: row.event,
      channel: row.channel,
      destination: row.destination,
      destinationKey: row.destination_key,
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
    `SELECT c.webhooks, c.emails, c.webhook_secrets, c.policy
     FROM jobs j LEFT JOIN alert_configs c ON c.job_id = j.id WHERE j.id = $1`,
    [jobId],
  );
  if (!rows[0]) return null;
  return configOf(rows[0], (webhook, secret) => (secret ? { ...webhook, signed: true } : webhook));
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

interface PolicyStateRow {
  job_id: number;
  consecutive_failures: number;
  failures_toward_suspension: number;
  failing_since: Date | null;
  alerted_failure: boolean;
  last_alert_at: Date | null;
}

/**
 * The policy states of the given jobs, each row locked until the transaction ends (created when it
 * is a job's first): two transactions recording the same job's runs (the controller and a pod's
 * report) take their turns, and neither counts on a state the other is changing. Locked in id
 * order, so two such transactions never wait on each other in a circle.
 */
export async function lockPolicyStates(tx: Queryable, jobIds: number[]): Promise<Map<number, PolicyState>> {
  if (jobIds.length === 0) return new Map();
  const { rows } = await tx.query<PolicyStateRow>(
    prepared(
      'lock_alert_policy_states',
      `INSERT INTO alert_policy_state (job_id) SELECT id FROM unnest($1::int[]) AS id ORDER BY id
       ON CONFLICT (job_id) DO UPDATE SET job_id = EXCLUDED.job_id
       RETURNING job_id, consecutive_failures, failures_toward_suspension, failing_since, alerted_failure,
         last_alert_at`,
      [[...new Set(jobIds)].sort((a, b) => a - b)],
    ),
  );
  return new Map(
    rows.map((row) => [
      row.job_id,
      {
        consecutiveFailures: row.consecutive_failures,
        failuresTowardSuspension: row.failures_toward_suspension,
        failingSince: row.failing_since,
        alertedFailure: row.alerted_failure,
        lastAlertAt: row.last_alert_at,
      },
    ]),
  );
}

/** Writes the policy states of jobs locked by `lockPolicyStates` in the same transaction, in one statement. */
export async function savePolicyStates(
  tx: Queryable,
  states: readonly { jobId: number; state: PolicyState }[],
): Promise<void> {
  if (states.length === 0) return;
  const column = <T>(pick: (state: PolicyState) => T) => states.map((each) => pick(each.state));
  await tx.query(
    prepared(
      'save_alert_policy_states',
      `UPDATE alert_policy_state s SET consecutive_failures = v.consecutive_failures,
         failures_toward_suspension = v.failures_toward_suspension, failing_since = v.failing_since,
         alerted_failure = v.alerted_failure, last_alert_at = v.last_alert_at
       FROM unnest($1::int[], $2::int[], $3::int[], $4::timestamptz[], $5::boolean[], $6::timestamptz[])
         AS v(job_id, consecutive_failures, failures_toward_suspension, failing_since, alerted_failure,
           last_alert_at)
       WHERE s.job_id = v.job_id`,
      [
        states.map((each) => each.jobId),
        column((state) => state.consecutiveFailures),
        column((state) => state.failuresTowardSuspension),
        column((state) => state.failingSince),
        column((state) => state.alertedFailure),
        column((state) => state.lastAlertAt),
      ],
    ),
  );
}

/** A person resumed the suspended job: its failures count toward a suspension from zero again. */
export async function restartSuspensionCount(db: Queryable, jobId: number): Promise<void> {
  await db.query('UPDATE alert_policy_state SET failures_toward_suspension = 0 WHERE job_id = $1', [jobId]);
}

/** An attempt in progress whose run has gone on longer than its job's `maxDurationSeconds`. */
export interface OverrunningAttempt {
  jobId: number;
  /** The running attempt. */
  executionId: number;
  attempt: number;
  /** The run's first attempt: the run's subject is `execution:<its id>`. */
  runExecutionId: number;
  runStartedAt: Date;
}

/**
 * Runs of this process's runtime (their attempts' rows say `running`) that have gone on past their
 * job's `maxDurationSeconds` at `now`, and whose overrun (`overrun:execution:<first attempt>`) was
 * not raised yet. A run began with its
 * attempt 0: a retry's run is the latest attempt 0 of its job before it (one run at a time).
 */
export async function findOverrunningAttempts(db: Queryable, now: Date): Promise<OverrunningAttempt[]> {
  const { rows } = await db.query<{
    job_id: number;
    execution_id: string;
    attempt: number;
    run_execution_id: string;
    run_started_at: Date;
  }>(
    prepared(
      'find_overrunning_attempts',
      `SELECT e.job_id, e.id AS execution_id, e.attempt,
              coalesce(first.id, e.id) AS run_execution_id, coalesce(first.started_at, e.started_at) AS run_started_at
         FROM executions e
         JOIN alert_configs c ON c.job_id = e.job_id AND c.policy ? 'maxDurationSeconds'
         LEFT JOIN alert_policy_state s ON s.job_id = e.job_id
         LEFT JOIN LATERAL (
           SELECT f.id, f.started_at FROM executions f
            WHERE e.attempt > 0 AND f.job_id = e.job_id AND f.attempt = 0 AND f.started_at <= e.started_at
            ORDER BY f.started_at DESC, f.id DESC LIMIT 1) first ON true
        WHERE e.status = 'running'
          AND coalesce(first.started_at, e.started_at)
              + (c.policy->>'maxDurationSeconds')::int * interval '1 second' <= $1
          AND s.overrun_subject IS DISTINCT FROM 'overrun:execution:' || coalesce(first.id, e.id)`,
      [now],
    ),
  );
  return rows.map((row) => ({
    jobId: row.job_id,
    executionId: Number(row.execution_id),
    attempt: row.attempt,
    runExecutionId: Number(row.run_execution_id),
    runStartedAt: row.run_started_at,
  }));
}

/**
 * Takes the overrun of one run for the transaction: true when no transaction took it before (this
 * one raises it), false when one did. The job's row stays locked until the transaction ends.
 */
export async function claimOverrun(tx: Queryable, jobId: number, subject: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    `INSERT INTO alert_policy_state (job_id, overrun_subject) VALUES ($1, $2)
     ON CONFLICT (job_id) DO UPDATE SET overrun_subject = EXCLUDED.overrun_subject
       WHERE alert_policy_state.overrun_subject IS DISTINCT FROM EXCLUDED.overrun_subject`,
    [jobId, subject],
  );
  return (rowCount ?? 0) > 0;
}

type AlertState = NewAlertState | 'delivered' | 'failed';

/** One alert of a job's history, as `GET /api/jobs/:id/alerts/history` shows it. */
export interface AlertHistoryEntry {
  id: number;
  event: DestinationEvent;
  /** The failure alert sent again while the job keeps failing (policy `repeatEverySeconds`). */
  reminder: boolean;
  channel: AlertChannel;
  destination: string;
  state: AlertState;
  /** Why a muted or suppressed alert was not sent. */
  note: string | null;
  executionId: number | null;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** A job's alerts, newest first: sent, failing, and those its policy muted or suppressed. */
export async function listJobAlerts(
  db: Queryable,
  jobId: number,
  limit: number,
): Promise<AlertHistoryEntry[]> {
  const { rows } = await db.query<{
    id: string;
    event: DestinationEvent;
    reminder: boolean;
    channel: AlertChannel;
    destination: string;
    state: AlertState;
    note: string | null;
    execution_id: string | null;
    attempts: number;
    last_error: string | null;
    created_at: Date;
    finished_at: Date | null;
  }>(
    `SELECT id, event, coalesce((snapshot->>'reminder')::boolean, false) AS reminder, channel, destination,
            state, note, execution_id, attempts, last_error, created_at, finished_at
       FROM alert_outbox WHERE job_id = $1 ORDER BY id DESC LIMIT $2`,
    [jobId, limit],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    event: row.event,
    reminder: row.reminder,
    channel: row.channel,
    destination: row.destination,
    state: row.state,
    note: row.note,
    executionId: row.execution_id === null ? null : Number(row.execution_id),
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  }));
}
