// A job's slot history on the job page: every judged fire time, newest first, a page at a time,
// with its outcome, when its run started, how late, why, and links to the runs.
// Pages go back in time by `to` (just before the oldest slot shown); "Newer" returns along the
// pages seen. The first page follows new slots as they are judged; an older page stays put.

import { api } from './api.js';
import { h, reconcile, replaceChildren, setAttr, setText } from './dom.js';
import { formatDateTime, formatDuration, LOCAL_TIME_ZONE } from './format.js';
import { withRunStatus } from './slotRuns.js';
import { outcomeLook, runFailureText } from './slotLook.js';
import { toast } from './ui.js';

const PAGE_SIZE = 25;

/** The outcome as a badge; a slot whose run failed says so in it ("ran · its run failed"). */
function slotBadge(outcome, runStatus) {
  const look = outcomeLook(outcome, runStatus);
  const failure = runFailureText(runStatus);
  return h(
    'span',
    { class: `slot-badge ${look.className}` },
    h('span', { 'aria-hidden': 'true' }, look.glyph),
    failure ? `${look.text} · ${failure}` : look.text,
  );
}

export function createSlotHistory() {
  const rows = new Map();
  let jobId = null;
  /** The `to` of each page: null for the newest; an older page's is just before the previous page's last slot. */
  let cursors = [null];
  let hasOlder = false;

  const tbody = h('tbody');
  const table = h(
    'table',
    { class: 'table slot-history', hidden: true },
    h('caption', { class: 'visually-hidden' }, 'Slots of this job, newest first'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Slot', 'Outcome', 'Started', 'Delay', 'Why', 'Runs'].map((label) =>
          h('th', { scope: 'col' }, label),
        ),
      ),
    ),
    tbody,
  );
  const empty = h(
    'p',
    { class: 'muted', hidden: true },
    'No slot judged yet: a slot is judged once its grace has passed.',
  );
  const newer = h('button', {
    class: 'btn btn-small',
    type: 'button',
    text: 'Newer',
    onclick: () => turn(-1),
  });
  const older = h('button', {
    class: 'btn btn-small',
    type: 'button',
    text: 'Older',
    onclick: () => turn(1),
  });
  const pageLabel = h('span', { class: 'muted small', 'aria-live': 'polite' });
  const pager = h('div', { class: 'pager', hidden: true }, newer, older, pageLabel);
  const zoneNote = h('p', { class: 'muted small' }, `Times in your time zone, ${LOCAL_TIME_ZONE}.`);

  function createRow() {
    const p = {
      when: h('time', {}),
      outcome: h('span', {}),
      started: h('time', {}),
      delay: h('span', {}),
      reason: h('span', { class: 'small' }),
      runs: h('span', { class: 'run-links' }),
    };
    const row = h(
      'tr',
      {},
      h('td', { dataset: { label: 'Slot' } }, p.when),
      h('td', { dataset: { label: 'Outcome' } }, p.outcome),
      h('td', { dataset: { label: 'Started' } }, p.started),
      h('td', { dataset: { label: 'Delay' } }, p.delay),
      h('td', { class: 'cell-note', dataset: { label: 'Why' } }, p.reason),
      h('td', { dataset: { label: 'Runs' } }, p.runs),
    );
    row.parts = p;
    return row;
  }

  function updateRow(row, slot) {
    const p = row.parts;
    row.dataset.outcome = slot.outcome;
    setText(p.when, formatDateTime(slot.scheduledAt));
    setAttr(p.when, 'datetime', slot.scheduledAt);
    const lookKey = `${slot.outcome} ${slot.runStatus ?? ''}`;
    if (p.outcome.dataset.key !== lookKey) {
      p.outcome.dataset.key = lookKey;
      replaceChildren(p.outcome, slotBadge(slot.outcome, slot.runStatus));
    }
    setAttr(row, 'data-run-status', slot.runStatus ?? null);
    setText(p.started, slot.startedAt ? formatDateTime(slot.startedAt) : '—');
    setAttr(p.started, 'datetime', slot.startedAt ?? null);
    setText(
      p.delay,
      slot.delayMs === null || slot.delayMs === undefined ? '—' : formatDuration(slot.delayMs),
    );
    setText(p.reason, slot.reason ?? '');
    const runsKey = slot.executionIds.join(',');
    if (p.runs.dataset.key !== runsKey) {
      p.runs.dataset.key = runsKey;
      replaceChildren(
        p.runs,
        slot.executionIds.length === 0
          ? '—'
          : slot.executionIds.map((id) =>
              h(
                'a',
                {
                  href: `#/executions/${id}`,
                  'aria-label': `Run ${id} of the slot ${formatDateTime(slot.scheduledAt)}`,
                },
                `#${id}`,
              ),
            ),
      );
    }
  }

  function render(slots) {
    // One more than a page was asked for: whether an older page exists.
    hasOlder = slots.length > PAGE_SIZE;
    const shown = slots.slice(0, PAGE_SIZE);
    reconcile(tbody, rows, shown, (slot) => slot.scheduledAt, createRow, updateRow);
    table.hidden = shown.length === 0;
    const page = cursors.length;
    empty.hidden = shown.length > 0 || page > 1;
    pager.hidden = page === 1 && !hasOlder;
    newer.disabled = page === 1;
    older.disabled = !hasOlder;
    setText(pageLabel, shown.length ? `Page ${page}` : '');
    return shown;
  }

  let shownSlots = [];
  async function load() {
    const id = jobId;
    const to = cursors[cursors.length - 1];
    const listed = await api.listSlots(id, { to: to ?? undefined, limit: PAGE_SIZE + 1 });
    // Older pages reach past the job's latest executions: their runs are read one by one (once).
    const slots = await withRunStatus(id, listed, { exact: true });
    if (id === jobId && to === cursors[cursors.length - 1]) shownSlots = render(slots);
  }

  async function turn(step) {
    if (step > 0) {
      const oldest = shownSlots[shownSlots.length - 1];
      if (!oldest) return;
      cursors.push(new Date(Date.parse(oldest.scheduledAt) - 1).toISOString());
    } else if (cursors.length > 1) {
      cursors.pop();
    }
    try {
      await load();
    } catch (error) {
      toast(`Could not load the slots: ${error.message}`, 'error');
    }
  }

  return {
    element: h('div', {}, zoneNote, h('div', { class: 'table-wrap' }, table, empty), pager),
    /** A different job starts again at its newest slots. */
    show(id) {
      if (id === jobId) return;
      jobId = id;
      cursors = [null];
      shownSlots = [];
      // Nothing of the previous job, and no "no slot yet" before this one's answer.
      reconcile(tbody, rows, [], (slot) => slot.scheduledAt, createRow, updateRow);
      table.hidden = empty.hidden = pager.hidden = true;
    },
    refresh: load,
  };
}
