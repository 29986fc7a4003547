// A job's alerts, newest first: sent, failing, and those its policy muted (a maintenance window) or
// suppressed (a threshold, a reminder interval), each with why.
// Contract: GET /api/jobs/:id/alerts/history → [{ id, event, reminder, channel, destination,
// destinationName, state, note, executionId, attempts, lastError, createdAt, finishedAt }].

import { h, reconcile, setAttr, setText } from './dom.js';
import { formatCompact, formatDateTime } from './format.js';

const STATE_LOOK = {
  delivered: { icon: '✓', kind: 'success' },
  pending: { icon: '…', kind: 'running' },
  failed: { icon: '✕', kind: 'failed' },
  muted: { icon: '∥', kind: 'none' },
  suppressed: { icon: '–', kind: 'none' },
};

/**
 * What a history row says of its destination: the name the service gives it, which tells two webhooks
 * of one host apart and leaves a webhook's secrets out (never the URL itself: its path may be one).
 */
function destinationText(entry) {
  const channel = entry.channel === 'webhook' ? 'webhook' : 'e-mail';
  return entry.destinationName ? `${channel}: ${entry.destinationName}` : channel;
}

export function createAlertHistory() {
  const rows = new Map();
  const tbody = h('tbody');
  const table = h(
    'table',
    { class: 'table alert-history', hidden: true },
    h('caption', { class: 'visually-hidden' }, 'Alerts of this job, newest first'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Raised', 'Event', 'Destination', 'State', 'Why'].map((label) => h('th', { scope: 'col' }, label)),
      ),
    ),
    tbody,
  );
  const empty = h('p', { class: 'muted', hidden: true }, 'No alerts yet.');

  function createRow() {
    const p = {
      when: h('time', {}),
      event: h('span', {}),
      destination: h('span', { class: 'mono small' }),
      state: h('span', { class: 'badge' }),
      note: h('span', { class: 'small' }),
    };
    const row = h(
      'tr',
      {},
      h('td', { dataset: { label: 'Raised' } }, p.when),
      h('td', { dataset: { label: 'Event' } }, p.event),
      h('td', { dataset: { label: 'Destination' } }, p.destination),
      h('td', { dataset: { label: 'State' } }, p.state),
      h('td', { class: 'cell-note', dataset: { label: 'Why' } }, p.note),
    );
    row.parts = p;
    return row;
  }

  function updateRow(row, entry) {
    const p = row.parts;
    row.dataset.state = entry.state;
    setText(p.when, formatCompact(entry.createdAt));
    setAttr(p.when, 'datetime', entry.createdAt);
    setAttr(p.when, 'title', formatDateTime(entry.createdAt));
    setText(p.event, entry.reminder ? `${entry.event} (reminder)` : entry.event);
    setText(p.destination, destinationText(entry));
    const look = STATE_LOOK[entry.state] ?? { icon: '', kind: 'none' };
    const className = `badge badge-${look.kind} alert-state-${entry.state}`;
    if (p.state.className !== className) p.state.className = className;
    setText(p.state, `${look.icon} ${entry.state}`);
    setText(p.note, entry.note ?? entry.lastError ?? '');
  }

  return {
    element: h('div', { class: 'table-wrap' }, table, empty),
    update(entries) {
      reconcile(tbody, rows, entries, (entry) => entry.id, createRow, updateRow);
      table.hidden = entries.length === 0;
      empty.hidden = entries.length > 0;
    },
  };
}
