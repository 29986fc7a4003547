import { type AlertConfig, isAlertEvent } from '../domain/alertConfig';
import type { AlertEvent } from '../domain/execution';
import type { Clock } from '../domain/clock';
import type { Logger } from '../logging/logger';
import type { ExecutionFinishedHook, RecordedExecution } from '../scheduling/executionRecorder';
import { enqueueAlerts, findAlertConfigs, type NewOutboxAlert } from '../store/alerts';
import { RECIPIENT_SEPARATOR } from './alertDelivery';
import { snapshotOf } from './alertSnapshot';
import { destinationsFor } from './destinations';

/**
 * Longest wait of the alert of a cluster run killed or stopped for its reason from the controller
 * (`RecordedExecution.awaitsClusterReason`): it sees the pod end within seconds; a minute covers a
 * controller that is restarting or handing over its lease.
 */
const CLUSTER_REASON_WAIT_MS = 60_000;

/**
 * Queues finished runs' alerts in the transaction that records their executions: they commit with
 * the executions or not at all, so a crash can lose neither one without the other. Only a run's
 * final attempt alerts (DESIGN.md), and a skipped fire time never does. However many executions the
 * transaction records, their jobs' configurations are read in one query and their alerts queued in
 * one insert.
 */
export function outboxHook(options: {
  clock: Clock;
  logger: Logger;
  emailEnabled: boolean;
  /** Runs once a transaction that queued alerts has committed (wakes the worker). */
  afterQueued?: () => void;
}): ExecutionFinishedHook {
  let warnedNoSmtp = false;
  const skipEmails = (jobName: string) => {
    // Spec section 6: skipped, with a warning. Once per process, not once per run.
    if (!warnedNoSmtp) {
      warnedNoSmtp = true;
      options.logger.warn('e-mail alerts are skipped: SERVICE_SMTP_HOST is not set', { job: jobName });
    }
  };

  const alertsOf = (
    { job, execution, awaitsClusterReason }: RecordedExecution,
    event: AlertEvent,
    config: AlertConfig,
  ) => {
    const destinations = destinationsFor(config, event);
    if (destinations.emails.length > 0 && !options.emailEnabled) {
      skipEmails(job.name);
      destinations.emails = [];
    }
    const createdAt = options.clock.now();
    // The controller gives such an alert its reason (OOMKilled...) and sends it on at once; should
    // it not, the alert goes without one after the wait.
    const notBefore = awaitsClusterReason
      ? new Date(createdAt.getTime() + CLUSTER_REASON_WAIT_MS)
      : undefined;
    const common = { jobId: job.id, executionId: execution.id, event, createdAt, notBefore };
    const snapshot = snapshotOf(job, execution, event, createdAt);
    return [
      ...destinations.webhooks.map((webhook) => ({
        ...common,
        channel: 'webhook' as const,
        destination: webhook.url,
        format: webhook.format,
        signingSecret: webhook.secret,
        snapshot,
      })),
      ...destinations.emails.map((to) => ({
        ...common,
        channel: 'email' as const,
        destination: to.join(RECIPIENT_SEPARATOR),
        snapshot,
      })),
    ];
  };

  return async (tx, recorded) => {
    const alerting = recorded.filter((r) => r.finalAttempt && isAlertEvent(r.execution.status));
    if (alerting.length === 0) return;
    const configs = await findAlertConfigs(tx, [...new Set(alerting.map((r) => r.job.id))]);
    const alerts: NewOutboxAlert[] = [];
    for (const each of alerting) {
      const config = configs.get(each.job.id);
      const event = each.execution.status;
      if (config && isAlertEvent(event)) alerts.push(...alertsOf(each, event, config));
    }
    if (alerts.length === 0) return;
    await enqueueAlerts(tx, alerts);
    return options.afterQueued;
  };
}
