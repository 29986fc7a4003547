import { type AlertConfig, isAlertEvent } from '../domain/alertConfig';
import type { DestinationEvent } from '../domain/alertEvents';
import type { Clock } from '../domain/clock';
import type { Job } from '../domain/job';
import type { Logger } from '../logging/logger';
import type { Queryable } from '../store/database';
import type {
  AfterCommit,
  ExecutionFinishedHook,
  ExecutionsRecordedStep,
  RecordedExecution,
} from '../store/transactionHooks';
import { enqueueAlerts, findAlertConfigs, type NewOutboxAlert } from '../store/alerts';
import { RECIPIENT_SEPARATOR } from './alertDelivery';
import { type AlertSnapshot, snapshotOf } from './alertSnapshot';
import { destinationsFor } from './destinations';
import { applyPolicies } from './policy/applyPolicies';

/** One alert for every destination of `config` that lists its event. */
export interface AlertFanOut {
  job: Job;
  executionId: number | null;
  subject: string;
  event: DestinationEvent;
  snapshot: AlertSnapshot;
  state: NewOutboxAlert['state'];
  note: string | null;
  createdAt: Date;
  /** Not sent before this (default: at once). */
  notBefore?: Date;
}

/**
 * Turns alerts into outbox rows, one per destination that lists the event, each webhook sent as its
 * entry says (format, signature). E-mails are left out while SMTP is not configured (spec section
 * 6: skipped, with a warning once per process).
 */
export function outboxRows(logger: Logger, emailEnabled: boolean) {
  let warnedNoSmtp = false;
  return (config: AlertConfig, alert: AlertFanOut): NewOutboxAlert[] => {
    const destinations = destinationsFor(config, alert.event);
    if (destinations.emails.length > 0 && !emailEnabled) {
      if (!warnedNoSmtp) {
        warnedNoSmtp = true;
        logger.warn('e-mail alerts are skipped: SERVICE_SMTP_HOST is not set', { job: alert.job.name });
      }
      destinations.emails = [];
    }
    const common = {
      jobId: alert.job.id,
      executionId: alert.executionId,
      subject: alert.subject,
      event: alert.event,
      snapshot: alert.snapshot,
      createdAt: alert.createdAt,
      notBefore: alert.notBefore,
      state: alert.state,
      note: alert.note,
    };
    return [
      ...destinations.webhooks.map((webhook) => ({
        ...common,
        channel: 'webhook' as const,
        destination: webhook.url,
        format: webhook.format,
        signingSecret: webhook.secret,
      })),
      ...destinations.emails.map((to) => ({
        ...common,
        channel: 'email' as const,
        destination: to.join(RECIPIENT_SEPARATOR),
      })),
    ];
  };
}

/**
 * Longest wait of the alert of a cluster run killed or stopped for its reason from the controller
 * (`RecordedExecution.awaitsClusterReason`): it sees the pod end within seconds; a minute covers a
 * controller that is restarting or handing over its lease.
 */
const CLUSTER_REASON_WAIT_MS = 60_000;

/**
 * When a run's alerts may go. The controller gives the alerts of a run that waits for its reason
 * (OOMKilled...) that reason and sends them on at once; should it not, they go without one after
 * the wait. This holds for every alert about the run's execution, the policy's (a `suspended`, a
 * reminder) as much as the spec's.
 */
function notBeforeOf({ awaitsClusterReason }: RecordedExecution, now: Date): Date | undefined {
  return awaitsClusterReason ? new Date(now.getTime() + CLUSTER_REASON_WAIT_MS) : undefined;
}

/**
 * Queues finished runs' alerts in the transaction that records their executions: they commit with
 * the executions or not at all, so a crash can lose neither one without the other. Only a run's
 * final attempt alerts (DESIGN.md), and a skipped fire time never does. However many executions the
 * transaction records, their jobs' configurations are read in one query (before the transaction, when
 * the recorder prepares the hook: `ExecutionFinishedHook.prepare`) and their alerts queued in one
 * insert. Jobs with an alert policy (docs/alert-policy.md) take a few statements more, for all of
 * them together: their states, and the jobs the policy suspends.
 */
export function outboxHook(options: {
  clock: Clock;
  logger: Logger;
  emailEnabled: boolean;
  /** The time zone of a job without one (maintenance windows are read in it). */
  defaultTimeZone: string;
  /** Runs once a transaction that queued alerts has committed (wakes the worker). */
  afterQueued?: () => void;
  /** Runs once a transaction that suspended jobs (the alert policy) has committed. */
  afterSuspended?: (jobIds: number[]) => void;
}): ExecutionFinishedHook {
  const rowsOf = outboxRows(options.logger, options.emailEnabled);

  const plainAlerts = (run: RecordedExecution, config: AlertConfig, now: Date) => {
    const { job, execution } = run;
    const event = execution.status;
    if (!isAlertEvent(event)) return [];
    return rowsOf(config, {
      job,
      executionId: execution.id,
      subject: `execution:${execution.id}`,
      event,
      snapshot: snapshotOf(job, execution, event, now),
      state: 'pending',
      note: null,
      createdAt: now,
      notBefore: notBeforeOf(run, now),
    });
  };

  /** Queues the alerts of `alerting`, final attempts whose status is an alert event. */
  const queue = async (
    tx: Queryable,
    alerting: RecordedExecution[],
    configs: Map<number, AlertConfig>,
  ): Promise<AfterCommit | void> => {
    const now = options.clock.now();
    const alerts: NewOutboxAlert[] = [];
    const governed: RecordedExecution[] = [];
    for (const each of alerting) {
      const config = configs.get(each.job.id);
      if (!config) continue;
      if (config.policy) governed.push(each);
      else alerts.push(...plainAlerts(each, config, now));
    }
    let suspendedJobIds: number[] = [];
    if (governed.length > 0) {
      const applied = await applyPolicies(tx, governed, configs, {
        now,
        defaultTimeZone: options.defaultTimeZone,
      });
      suspendedJobIds = applied.suspendedJobIds;
      for (const { recorded: run, intent } of applied.alerts) {
        const { job, execution } = run;
        alerts.push(
          ...rowsOf(configs.get(job.id)!, {
            job,
            executionId: execution.id,
            subject: `${intent.subjectKind}:${execution.id}`,
            event: intent.event,
            snapshot: snapshotOf(job, execution, intent.event, now, intent.facts),
            state: intent.state,
            note: intent.note,
            createdAt: now,
            notBefore: notBeforeOf(run, now),
          }),
        );
      }
    }
    if (alerts.length > 0) await enqueueAlerts(tx, alerts);
    const queued = alerts.some((alert) => alert.state === 'pending');
    if (!queued && suspendedJobIds.length === 0) return;
    return () => {
      if (queued) options.afterQueued?.();
      if (suspendedJobIds.length > 0) options.afterSuspended?.(suspendedJobIds);
    };
  };

  /** Those that may alert: a run's final attempt (DESIGN.md) whose status is an alert event. */
  const alertingOf = <T extends { finalAttempt: boolean }>(all: T[], status: (each: T) => string) =>
    all.filter((each) => each.finalAttempt && isAlertEvent(status(each)));

  /**
   * The step inside the transaction: queues the alerts of what it recorded, with the configurations
   * `prepared` read for its jobs before it, or read now (another transaction's, or jobs not read for).
   */
  const queueAlerts =
    (prepared?: { jobIds: Set<number>; configs: Map<number, AlertConfig> }): ExecutionsRecordedStep =>
    async (tx, recorded) => {
      const alerting = alertingOf(recorded, (r) => r.execution.status);
      if (alerting.length === 0) return;
      const jobIds = [...new Set(alerting.map((r) => r.job.id))];
      const configs =
        prepared && jobIds.every((id) => prepared.jobIds.has(id))
          ? prepared.configs
          : await findAlertConfigs(tx, jobIds);
      return queue(tx, alerting, configs);
    };

  const hook: ExecutionFinishedHook = queueAlerts();
  hook.prepare = async (db, coming) => {
    const jobIds = [...new Set(alertingOf(coming, (each) => each.status).map((each) => each.jobId))];
    // Nothing to read when nothing may alert (a skipped fire time, an attempt to be retried).
    const configs = jobIds.length > 0 ? await findAlertConfigs(db, jobIds) : new Map<number, AlertConfig>();
    return queueAlerts({ jobIds: new Set(jobIds), configs });
  };
  return hook;
}
