// What started a run, and the slot it was for, in the page's words: the executions list and an
// execution's page show it, so a backfill or a catch-up is not mistaken for the schedule firing
// on time, nor a run by hand for either.
// Contract: executions carry `trigger` (`schedule`, `catchUp`, `backfill`, null: by hand) and
// `scheduledAt` (the slot, null for a run by hand).

import { formatDateTime } from './format.js';

const TRIGGER_TEXT = { schedule: 'scheduled', catchUp: 'catch-up', backfill: 'backfill' };

/** "scheduled", "catch-up", "backfill" or "by hand"; a trigger this page does not know, as sent. */
export function triggerText(execution) {
  const trigger = execution.trigger ?? null;
  if (trigger === null) return 'by hand';
  return TRIGGER_TEXT[trigger] ?? String(trigger);
}

/** "backfill · slot Nov 29, 2026, 10:00:00 AM" (local time), or "by hand". */
export function describeTrigger(execution) {
  const text = triggerText(execution);
  return execution.scheduledAt ? `${text} · slot ${formatDateTime(execution.scheduledAt)}` : text;
}
