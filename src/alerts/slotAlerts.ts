import type { Clock } from '../domain/clock';
import { effectiveTimeZone } from '../domain/job';
import type { Logger } from '../logging/logger';
import type { JudgedSlotOfJob, SlotsJudgedHook } from '../store/transactionHooks';
import { enqueueAlerts, findAlertConfigs, type NewOutboxAlert } from '../store/alerts';
import { findJobs } from '../store/jobs';
import { slotAlertSnapshotOf, type SlotSnapshot } from './alertSnapshot';
import { outboxRows } from './outboxHook';
import { mutedNote, openMaintenanceWindow } from './policy/maintenance';

/** The subject of a slot's alert: one per slot and destination is ever queued. */
function slotAlertSubject(jobId: number, scheduledAt: Date): string {
  return `slot:${jobId}:${scheduledAt.toISOString()}`;
}

/**
 * Queues the alerts of `missed` and `late` slots (docs/slots.md) in the transaction that judges
 * them, so that a slot's alert is queued with its judgement or not at all: once, whoever judges,
 * across restarts. Only destinations that list the event hear of it (an existing configuration
 * sends what it sent before). A maintenance window of the job's alert policy open at the slot's
 * time mutes it, as it mutes the job's other alerts. Two statements for any number of slots, and
 * one more to queue what they raise.
 */
export function slotAlertsHook(options: {
  clock: Clock;
  logger: Logger;
  emailEnabled: boolean;
  defaultTimeZone: string;
  /** Runs once a transaction that queued alerts has committed (wakes the worker). */
  afterQueued?: () => void;
}): SlotsJudgedHook {
  const rowsOf = outboxRows(options.logger, options.emailEnabled);
  return async (tx, judged) => {
    const alerting = judged.filter((slot) => slot.outcome === 'missed' || slot.outcome === 'late');
    if (alerting.length === 0) return;
    const jobIds = [...new Set(alerting.map((slot) => slot.jobId))];
    const configs = await findAlertConfigs(tx, jobIds);
    if (configs.size === 0) return;
    const jobs = await findJobs(tx, [...configs.keys()]);
    const now = options.clock.now();
    const alerts: NewOutboxAlert[] = [];
    for (const slot of alerting) {
      const config = configs.get(slot.jobId);
      const job = jobs.get(slot.jobId);
      if (!config || !job) continue;
      const open = openMaintenanceWindow(
        config.policy?.maintenance,
        effectiveTimeZone(job, options.defaultTimeZone),
        slot.scheduledAt,
      );
      alerts.push(
        ...rowsOf(config, {
          job,
          executionId: slot.executionIds[0] ?? null,
          subject: slotAlertSubject(slot.jobId, slot.scheduledAt),
          event: slot.outcome as SlotSnapshot['outcome'],
          snapshot: slotAlertSnapshotOf(job, snapshotOfSlot(slot), now),
          state: open ? 'muted' : 'pending',
          note: open ? `muted: ${mutedNote(open)}` : null,
          createdAt: now,
        }),
      );
    }
    if (alerts.length > 0) await enqueueAlerts(tx, alerts);
    if (alerts.some((alert) => alert.state === 'pending')) return options.afterQueued;
  };
}

function snapshotOfSlot(slot: JudgedSlotOfJob): SlotSnapshot {
  return {
    scheduledAt: slot.scheduledAt.toISOString(),
    outcome: slot.outcome as SlotSnapshot['outcome'],
    reason: slot.reason,
    ...(slot.startedAt && { startedAt: slot.startedAt.toISOString() }),
    ...(slot.delayMs !== null && { delayMs: slot.delayMs }),
    ...(slot.executionIds.length > 0 && { executionIds: slot.executionIds }),
  };
}
