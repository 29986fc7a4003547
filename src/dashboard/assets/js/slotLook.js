// How a slot's outcome looks wherever the page shows one: a colour (by class) and a glyph, so an
// outcome never rests on colour alone, and a sentence for a title or a screen reader.
// Contract: GET /api/jobs/:id/slots → [{ scheduledAt, outcome, executionIds, startedAt, delayMs, reason }].

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

/** `{ glyph, text, className }` of an outcome; an outcome this page does not know shows as text. */
export function outcomeLook(outcome) {
  const look = OUTCOME_LOOK[outcome];
  return look
    ? { ...look, className: `slot-${outcome}` }
    : { glyph: '?', text: String(outcome), className: 'slot-unknown' };
}

/** "Jun 1, 2026, 10:05:00: late — started 2 min after its time, past its grace of 1 min" (local time). */
export function describeSlot(slot) {
  const head = `${formatDateTime(slot.scheduledAt)}: ${outcomeLook(slot.outcome).text}`;
  return slot.reason ? `${head} — ${slot.reason}` : head;
}
