// Execution history: newest first, filtered by job and status; a row opens the execution.

import { api } from './api.js';
import { h, reconcile, replaceChildren, setAttr, setText } from './dom.js';
import { formatCompact, formatDateTime, formatDuration, formatRelative } from './format.js';
import { describeTrigger, triggerText } from './trigger.js';
import { statusBadge, updateStatusBadge } from './ui.js';

const STATUSES = ['running', 'success', 'failed', 'timeout', 'skipped'];
const LIMITS = [50, 100, 250, 500];

/** The hash of the list with `params` as its filters. */
export function executionsHash(params = {}) {
  const search = new URLSearchParams();
  for (const key of ['jobId', 'status', 'limit']) if (params[key]) search.set(key, params[key]);
  const query = search.toString();
  return `#/executions${query ? `?${query}` : ''}`;
}

export function createExecutionsView(section, ctx) {
  const rows = new Map();
  let params = {};
  let jobs = [];
  let loaded = false;

  const jobSelect = h('select', { name: 'jobId', id: 'filter-job' }, h('option', { value: '' }, 'All jobs'));
  const statusSelect = h(
    'select',
    { name: 'status', id: 'filter-status' },
    h('option', { value: '' }, 'All statuses'),
    STATUSES.map((status) => h('option', { value: status }, status)),
  );
  const limitSelect = h(
    'select',
    { name: 'limit', id: 'filter-limit' },
    LIMITS.map((limit) => h('option', { value: String(limit) }, `Last ${limit}`)),
  );
  for (const select of [jobSelect, statusSelect, limitSelect]) {
    select.addEventListener('change', () => {
      const next = {
        jobId: jobSelect.value,
        status: statusSelect.value,
        limit: limitSelect.value === '50' ? '' : limitSelect.value,
      };
      ctx.navigate(executionsHash(next));
    });
  }
  const clear = h('a', { class: 'btn btn-ghost btn-small', href: '#/executions', text: 'Clear filters' });

  const tbody = h('tbody');
  const table = h(
    'table',
    { class: 'table executions-table', hidden: true },
    h('caption', { class: 'visually-hidden' }, 'Executions, newest first'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Status', 'Job', 'Started', 'Duration', 'Exit code', 'Attempt', ''].map((label) =>
          h('th', { scope: 'col' }, label),
        ),
      ),
    ),
    tbody,
  );
  const empty = h('div', { class: 'empty', hidden: true });
  const count = h('span', { class: 'muted small', 'aria-live': 'polite' });

  replaceChildren(
    section,
    h('div', { class: 'view-head' }, h('h1', { id: 'executions-title', tabindex: -1 }, 'Executions'), count),
    h(
      'form',
      {
        class: 'filters',
        role: 'search',
        'aria-label': 'Filter executions',
        onsubmit: (e) => e.preventDefault(),
      },
      h('div', { class: 'field' }, h('label', { for: 'filter-job' }, 'Job'), jobSelect),
      h('div', { class: 'field' }, h('label', { for: 'filter-status' }, 'Status'), statusSelect),
      h('div', { class: 'field' }, h('label', { for: 'filter-limit' }, 'Show'), limitSelect),
      clear,
    ),
    h('div', { class: 'table-wrap' }, table),
    empty,
  );

  function syncJobOptions() {
    const wanted = [...jobs].sort((a, b) => a.name.localeCompare(b.name));
    // A filter on a job that no longer exists still gets an option, so the select shows the truth.
    if (params.jobId && !wanted.some((job) => String(job.id) === params.jobId)) {
      wanted.push({ id: Number(params.jobId), name: `job #${params.jobId} (deleted)` });
    }
    const key = wanted.map((job) => `${job.id}:${job.name}`).join('\n');
    if (jobSelect.dataset.key !== key) {
      jobSelect.dataset.key = key;
      replaceChildren(
        jobSelect,
        h('option', { value: '' }, 'All jobs'),
        wanted.map((job) => h('option', { value: String(job.id) }, job.name)),
      );
    }
    jobSelect.value = params.jobId ?? '';
  }

  function createRow(execution) {
    const p = {};
    p.badge = statusBadge(execution.status);
    p.job = h('a', { class: 'link-strong' });
    // What started the run, a word beside its job; the slot it was for on hover.
    p.trigger = h('span', { class: 'trigger-tag' });
    // Who started it, where the service can name them (a run by hand, a backfill, in Kubernetes mode).
    p.triggeredBy = h('span', { class: 'triggered-by muted small', hidden: true });
    p.started = h('time', {});
    p.ago = h('span', { class: 'muted small' });
    p.duration = h('span', { class: 'num' });
    p.exit = h('span', { class: 'num' });
    p.attempt = h('span', { class: 'num' });
    p.open = h('a', { class: 'btn btn-small btn-ghost', text: 'Output' });
    const row = h(
      'tr',
      { class: 'row-link' },
      h('td', { dataset: { label: 'Status' } }, p.badge),
      h('td', { dataset: { label: 'Job' } }, p.job, ' ', p.trigger, ' ', p.triggeredBy),
      h('td', { dataset: { label: 'Started' } }, p.started, ' ', p.ago),
      h('td', { dataset: { label: 'Duration' } }, p.duration),
      h('td', { dataset: { label: 'Exit code' } }, p.exit),
      h('td', { dataset: { label: 'Attempt' } }, p.attempt),
      h('td', { class: 'cell-actions' }, p.open),
    );
    // The whole row opens the execution for a mouse; the link is the keyboard path.
    row.addEventListener('click', (event) => {
      if (event.target.closest('a, button')) return;
      ctx.navigate(`#/executions/${row.executionId}`);
    });
    row.parts = p;
    return row;
  }

  function updateRow(row, execution) {
    const p = row.parts;
    row.executionId = execution.id;
    row.dataset.executionId = execution.id;
    row.dataset.status = execution.status;
    updateStatusBadge(p.badge, execution.status);
    setText(p.job, execution.jobName);
    setAttr(p.job, 'href', executionsHash({ ...params, jobId: String(execution.jobId) }));
    p.trigger.dataset.trigger = execution.trigger ?? 'manual';
    setText(p.trigger, triggerText(execution));
    setAttr(p.trigger, 'title', describeTrigger(execution));
    p.triggeredBy.hidden = !execution.triggeredBy;
    setText(p.triggeredBy, execution.triggeredBy ? `by ${execution.triggeredBy}` : '');
    setText(p.started, formatCompact(execution.startedAt));
    setAttr(p.started, 'datetime', execution.startedAt);
    setAttr(p.started, 'title', formatDateTime(execution.startedAt));
    setText(p.ago, `(${formatRelative(execution.startedAt)})`);
    setText(p.duration, formatDuration(execution.durationMs));
    setText(p.exit, execution.exitCode ?? '—');
    p.exit.classList.toggle('nonzero', Boolean(execution.exitCode));
    setText(p.attempt, execution.attempt);
    setAttr(p.open, 'href', `#/executions/${execution.id}`);
    setAttr(p.open, 'aria-label', `Output of ${execution.jobName} execution ${execution.id}`);
  }

  return {
    title: 'Executions',
    show(nextParams) {
      const changed = JSON.stringify(nextParams) !== JSON.stringify(params);
      params = nextParams;
      statusSelect.value = params.status ?? '';
      limitSelect.value = params.limit && LIMITS.includes(Number(params.limit)) ? params.limit : '50';
      syncJobOptions();
      clear.hidden = !params.jobId && !params.status && !params.limit;
      if (changed) {
        // Rows of another filter must not linger while the new list loads.
        for (const row of rows.values()) row.remove();
        rows.clear();
        loaded = false;
        empty.hidden = true;
        setText(count, 'Loading…');
      }
    },
    async refresh() {
      const requested = params;
      const query = { jobId: params.jobId, status: params.status, limit: params.limit || 50 };
      // "All statuses" shows runs in progress too: the API lists them only when asked.
      const listed = params.status ? api.listExecutions(query) : api.listExecutionsWithRunning(query);
      const [executions, jobList] = await Promise.all([listed, api.listJobs()]);
      // The filters changed while this was loading: its answer belongs to the old ones.
      if (requested !== params) return;
      jobs = jobList;
      syncJobOptions();
      loaded = true;
      reconcile(tbody, rows, executions, (execution) => execution.id, createRow, updateRow);
      table.hidden = executions.length === 0;
      empty.hidden = executions.length > 0 || !loaded;
      replaceChildren(
        empty,
        h('p', { class: 'empty-title' }, 'No executions'),
        h(
          'p',
          {},
          params.jobId || params.status
            ? 'Nothing matches these filters yet.'
            : 'Runs appear here when a job fires or when you press “Run now”.',
        ),
      );
      setText(count, `${executions.length} shown, newest first`);
    },
  };
}
