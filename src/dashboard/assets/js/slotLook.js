// How a slot's outcome looks wherever the page shows one: a colour (by class) and a glyph, so an
// outcome never rests on colour alone, and a sentence for a title or a screen reader.
// Contract: GET /api/jobs/:id/slots → [{ scheduledAt, outcome, executionIds, startedAt, delayMs, reason }],
// with `runStatus` added by slotRuns.js (the status of the slot's latest execution, or null).

import { formatDateTime } from './format.js';

const OUTCOME_LOOK = {
  ran: { glyph: '✓', text: 'ran' },
  late: { glyph: '!', text: 'late' },
  skipped: { glyph: '↷', text: 'skipped' },
  suspended: { glyph: '–', text: 'suspended' },
  paused: { glyph: '∥', text: 'paused' },
  missed: { glyph: '✕', text: 'missed' },
  duplicate: { glyph: '2', text: 'duplicate' },
};

/** How a run that did not succeed reads, after the slot's outcome. */
const RUN_FAILURE_TEXT = { failed: 'its run failed', timeout: 'its run timed out' };

/**
 * `{ glyph, text, className }` of an outcome; an outcome this page does not know shows as text.
 * `ran` says only that the run started in time: when that run failed or timed out, it keeps its
 * name but loses its green tick (a red-edged ✗ on a neutral cell, unlike `missed`'s solid red),
 * so a failed run never reads as a success.
 */
export function outcomeLook(outcome, runStatus = null) {
  const look = OUTCOME_LOOK[outcome];
  if (!look) return { glyph: '?', text: String(outcome), className: 'slot-unknown' };
  if (outcome === 'ran' && RUN_FAILURE_TEXT[runStatus]) {
    return { glyph: '✗', text: 'ran', className: 'slot-ran-failed' };
  }
  return { ...look, className: `slot-${outcome}` };
}

/** "its run failed", "its run timed out", or null when the run succeeded or is unknown. */
export function runFailureText(runStatus) {
  return RUN_FAILURE_TEXT[runStatus] ?? null;
}

/**
 * "Jun 1, 2026, 10:05:00: late — started 2 min after its time, past its grace of 1 min" (local
 * time); "…: ran, its run failed" when the slot's run did not succeed.
 */
export function describeSlot(slot) {
  const failure = runFailureText(slot.runStatus);
  const head = `${formatDateTime(slot.scheduledAt)}: ${outcomeLook(slot.outcome).text}${failure ? `, ${failure}` : ''}`;
  return slot.reason ? `${head} — ${slot.reason}` : head;
}
