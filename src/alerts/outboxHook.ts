import { isAlertEvent } from '../domain/alertConfig';
import type { Clock } from '../domain/clock';
import type { Logger } from '../logging/logger';
import type { ExecutionFinishedHook } from '../scheduling/executionRecorder';
import { enqueueAlerts, findAlertConfig, type NewOutboxAlert } from '../store/alerts';
import { RECIPIENT_SEPARATOR } from './alertDelivery';
import { snapshotOf } from './alertSnapshot';
import { destinationsFor } from './destinations';

/**
 * Queues a finished run's alerts in the transaction that records its execution: they commit with
 * the execution or not at all, so a crash can lose neither one without the other. Only a run's
 * final attempt alerts (DESIGN.md), and a skipped fire time never does.
 */
export function outboxHook(options: {
  clock: Clock;
  logger: Logger;
  emailEnabled: boolean;
  /** Runs once a transaction that queued alerts has committed (wakes the worker). */
  afterQueued?: () => void;
}): ExecutionFinishedHook {
  let warnedNoSmtp = false;
  return async (tx, { job, execution, finalAttempt }) => {
    if (!finalAttempt || !isAlertEvent(execution.status)) return;
    const config = await findAlertConfig(tx, job.id);
    if (!config) return;
    const event = execution.status;
    const destinations = destinationsFor(config, event);
    if (destinations.emails.length > 0 && !options.emailEnabled) {
      // Spec section 6: skipped, with a warning. Once per process, not once per run.
      if (!warnedNoSmtp) {
        warnedNoSmtp = true;
        options.logger.warn('e-mail alerts are skipped: SERVICE_SMTP_HOST is not set', { job: job.name });
      }
      destinations.emails = [];
    }
    if (destinations.webhooks.length === 0 && destinations.emails.length === 0) return;

    const createdAt = options.clock.now();
    const common = { jobId: job.id, executionId: execution.id, event, createdAt };
    const snapshot = snapshotOf(job, execution, event, createdAt);
    const alerts: NewOutboxAlert[] = [
      ...destinations.webhooks.map((url) => ({
        ...common,
        channel: 'webhook' as const,
        destination: url,
        snapshot,
      })),
      ...destinations.emails.map((to) => ({
        ...common,
        channel: 'email' as const,
        destination: to.join(RECIPIENT_SEPARATOR),
        snapshot,
      })),
    ];
    await enqueueAlerts(tx, alerts);
    return options.afterQueued;
  };
}
