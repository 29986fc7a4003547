// The jobs table: what runs when, how it last went, and the buttons to act on a job.

import { api } from './api.js';
import { h, reconcile, replaceChildren, setAttr, setText } from './dom.js';
import { formatDateTime, formatRelative, formatShort } from './format.js';
import { openAlertsDialog } from './alerts.js';
import { openJobForm } from './jobForm.js';
import { chosenNamespace } from './namespaceChoice.js';
import { creatableNamespaces, mayCreate, mayWithJob, whyNot, whyNotWithJob } from './session.js';
import { createSlotStrip } from './slotStrip.js';
import { createSlotStripLoader } from './slotStripLoader.js';
import { busy, confirmDialog, keepFocus, permit, statusBadge, toast, updateStatusBadge } from './ui.js';
import { ownedElsewhere } from './watched.js';

// Next to schedules read in each job's own zone, the next run is in the browser's: say so.
const NEXT_RUN_LABEL = 'Next run (your time)';

export function createJobsView(section, ctx) {
  const rows = new Map();
  const descriptions = new Map();
  const strips = createSlotStripLoader();
  let jobs = [];
  let loaded = false;
  /** The scheduler's state, as the header's panel last read it. */
  let scheduler = { paused: false, until: null };

  const filter = h('input', {
    type: 'search',
    class: 'search',
    placeholder: 'Filter by name, command or tag',
    'aria-label': 'Filter jobs',
    oninput: () => render(),
  });
  const newButton = h('button', {
    class: 'btn btn-primary',
    type: 'button',
    text: 'New job',
    onclick: () =>
      openJobForm({ onSaved: saved, namespaces: creatableNamespaces(), namespace: chosenNamespace() }),
  });
  const tbody = h('tbody');
  const table = h(
    'table',
    { class: 'table jobs-table', hidden: true },
    h('caption', { class: 'visually-hidden' }, 'Jobs'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Job', 'Schedule', NEXT_RUN_LABEL, 'Last run', 'Enabled', 'Actions'].map((label) =>
          h('th', { scope: 'col' }, label),
        ),
      ),
    ),
    tbody,
  );
  const empty = h('div', { class: 'empty', hidden: true });
  replaceChildren(
    section,
    h(
      'div',
      { class: 'view-head' },
      h('h1', { id: 'jobs-title', tabindex: -1 }, 'Jobs'),
      h('div', { class: 'view-tools' }, filter, newButton),
    ),
    h('div', { class: 'table-wrap' }, table),
    empty,
  );

  function saved(job) {
    upsert(job);
    ctx.refresh();
  }

  function upsert(job) {
    const index = jobs.findIndex((existing) => existing.id === job.id);
    if (index >= 0) jobs[index] = job;
    else jobs.push(job);
    render();
  }

  function matches(job, needle) {
    if (!needle) return true;
    const haystack = [job.name, job.command, job.description ?? '', ...(job.tags ?? [])].join('\n');
    return haystack.toLowerCase().includes(needle);
  }

  function render() {
    const chosen = chosenNamespace();
    permit(
      newButton,
      mayCreate(),
      chosen
        ? whyNot(chosen, 'create')
        : 'Your Kubernetes role does not allow creating jobs in any namespace (create scheduledjobs).',
    );
    const needle = filter.value.trim().toLowerCase();
    const visible = jobs.filter((job) => matches(job, needle));
    reconcile(tbody, rows, visible, (job) => job.id, createRow, updateRow);
    strips.retain(new Set(visible.map((job) => job.id)));
    table.hidden = visible.length === 0;
    empty.hidden = visible.length > 0 || !loaded;
    if (!empty.hidden) {
      replaceChildren(
        empty,
        jobs.length === 0
          ? [
              h('p', { class: 'empty-title' }, 'No jobs yet'),
              h('p', {}, 'Create a job with a cron schedule and a shell command.'),
            ]
          : h('p', {}, 'No job matches the filter.'),
      );
    }
    describeSchedules();
  }

  // Plain-language schedules come from the service (cronstrue); each expression is asked once.
  function describeSchedules() {
    for (const job of jobs) {
      if (descriptions.has(job.schedule)) continue;
      descriptions.set(job.schedule, null);
      api
        .describeCron(job.schedule)
        .then((result) => {
          descriptions.set(job.schedule, result.valid ? result.description : `invalid: ${result.error}`);
          render();
        })
        // Not asked again on the next refresh: a failing answer would fail every 5 s. A reload asks again.
        .catch(() => {
          descriptions.set(job.schedule, 'description unavailable');
          render();
        });
    }
  }

  function createRow() {
    const p = {};
    p.name = h('a', { class: 'job-name' });
    p.suspended = h('span', { class: 'badge badge-suspended', hidden: true }, 'suspended');
    // Kubernetes mode: where the job's ScheduledJob lives, and who last changed it.
    p.namespace = h('span', { class: 'job-namespace', hidden: true, title: 'Namespace' });
    p.changedBy = h('div', { class: 'job-changed-by muted small', hidden: true });
    p.description = h('div', { class: 'job-description muted' });
    p.command = h('code', { class: 'job-command' });
    p.tags = h('div', { class: 'tags' });
    p.expr = h('code', { class: 'cron' });
    p.human = h('div', { class: 'cron-human' });
    p.zone = h('span', { class: 'zone', title: 'Time zone of the schedule' });
    p.next = h('time', { class: 'when' });
    p.nextAbs = h('div', { class: 'muted small' });
    p.badge = statusBadge(null);
    p.last = h('time', { class: 'muted small' });
    p.strip = createSlotStrip();
    p.toggle = h('input', { type: 'checkbox', role: 'switch', class: 'switch-input' });
    p.toggle.addEventListener('change', () => toggle(row.job, p.toggle));
    p.run = h('button', {
      class: 'btn btn-small btn-primary',
      type: 'button',
      text: 'Run now',
      onclick: (event) => runNow(row.job, event.currentTarget),
    });
    p.history = h('a', { class: 'btn btn-small btn-ghost', text: 'History' });
    const alerts = h('button', {
      class: 'btn btn-small btn-ghost',
      type: 'button',
      text: 'Alerts',
      onclick: () => openAlertsDialog(row.job, { canChange: mayWithJob(row.job, 'updateAlerts') }),
    });
    const edit = h('button', {
      class: 'btn btn-small btn-ghost',
      type: 'button',
      text: 'Edit',
      onclick: () => openJobForm({ job: row.job, onSaved: saved }),
    });
    const remove = h('button', {
      class: 'btn btn-small btn-ghost btn-danger-text',
      type: 'button',
      text: 'Delete',
      onclick: (event) => removeJob(row.job, event.currentTarget),
    });
    p.buttons = [p.run, p.history, alerts, edit, remove];
    /** What a watched CronJob's owner keeps (watched.js). */
    p.ownersOnly = [edit, remove];
    /** Each control and the ability it takes, as the session's `can` names them. */
    p.guarded = [
      [p.run, 'run'],
      [alerts, 'getAlerts'],
      [edit, 'update'],
      [remove, 'delete'],
      [p.toggle, 'update'],
    ];

    const row = h(
      'tr',
      {},
      h(
        'td',
        { class: 'cell-job', dataset: { label: 'Job' } },
        p.name,
        ' ',
        p.suspended,
        ' ',
        p.namespace,
        p.description,
        p.command,
        p.tags,
        p.changedBy,
      ),
      h('td', { dataset: { label: 'Schedule' } }, h('div', { class: 'cron-line' }, p.expr, p.zone), p.human),
      h('td', { dataset: { label: NEXT_RUN_LABEL } }, p.next, p.nextAbs),
      // The recent slots sit under the last run: a column of their own would push the actions
      // out of a 1360-pixel-wide window.
      h('td', { class: 'cell-last', dataset: { label: 'Last run' } }, p.badge, ' ', p.last, p.strip.element),
      h(
        'td',
        { dataset: { label: 'Enabled' } },
        h(
          'label',
          { class: 'switch' },
          p.toggle,
          h('span', { class: 'switch-track', 'aria-hidden': 'true' }),
        ),
      ),
      h(
        'td',
        { class: 'cell-actions', dataset: { label: 'Actions' } },
        h('div', { class: 'actions' }, p.buttons),
      ),
    );
    row.parts = p;
    return row;
  }

  function updateRow(row, job) {
    const p = row.parts;
    row.job = job;
    row.dataset.jobId = job.id;
    row.classList.toggle('row-disabled', !job.enabled);
    setText(p.name, job.name);
    setAttr(p.name, 'href', `#/jobs/${job.id}`);
    // Suspended by its alert policy after failing runs: the switch is off, and this says why.
    p.suspended.hidden = !job.suspendedReason;
    setAttr(p.suspended, 'title', job.suspendedReason ?? null);
    p.namespace.hidden = !job.namespace;
    setText(p.namespace, job.namespace ?? '');
    p.changedBy.hidden = !job.changedBy;
    setText(p.changedBy, job.changedBy ? `Last changed by ${job.changedBy}` : '');
    setText(p.description, job.description ?? '');
    p.description.hidden = !job.description;
    setText(p.command, job.command);
    setAttr(p.command, 'title', job.command);
    const tagsKey = (job.tags ?? []).join('\u0000');
    if (p.tags.dataset.key !== tagsKey) {
      p.tags.dataset.key = tagsKey;
      replaceChildren(
        p.tags,
        (job.tags ?? []).map((tag) => h('span', { class: 'tag' }, tag)),
      );
    }
    p.tags.hidden = !job.tags?.length;
    setText(p.expr, job.schedule);
    // Without a zone of its own the service default applies, which the API does not name.
    setText(p.zone, job.timezone ?? 'service TZ');
    setAttr(
      p.zone,
      'title',
      job.timezone
        ? 'Time zone of the schedule'
        : 'No time zone set: the service default applies (UTC unless SERVICE_TIMEZONE is set)',
    );
    const human = descriptions.get(job.schedule);
    setText(p.human, human ?? '…');

    // A paused scheduler fires nothing before it resumes, though the API still names the next run.
    const held = Boolean(
      job.enabled &&
      job.nextRun &&
      scheduler.paused &&
      (!scheduler.until || Date.parse(job.nextRun) < Date.parse(scheduler.until)),
    );
    p.next.classList.toggle('when-paused', held);
    p.nextAbs.classList.toggle('paused-time', held);
    if (!job.enabled) {
      setText(p.next, job.suspendedReason ? 'suspended' : 'disabled');
      setAttr(p.next, 'datetime', null);
      setAttr(p.next, 'title', null);
      setText(p.nextAbs, '');
    } else if (held) {
      setText(p.next, 'paused');
      setAttr(p.next, 'datetime', job.nextRun);
      setText(p.nextAbs, formatShort(job.nextRun));
      setAttr(
        p.next,
        'title',
        `The scheduler is paused${scheduler.until ? ` until ${formatDateTime(scheduler.until)}` : ''}: ` +
          `it does not fire at ${formatDateTime(job.nextRun)}.`,
      );
    } else if (job.nextRun) {
      setText(p.next, formatRelative(job.nextRun));
      setAttr(p.next, 'datetime', job.nextRun);
      setText(p.nextAbs, formatShort(job.nextRun));
      setAttr(p.next, 'title', formatDateTime(job.nextRun));
    } else {
      setText(p.next, '—');
      setAttr(p.next, 'datetime', null);
      setAttr(p.next, 'title', null);
      setText(p.nextAbs, '');
    }

    // A run in progress comes first: "never run" or the previous outcome would mislead.
    const running = job.running;
    const shownAt = running ? running.startedAt : job.lastRun;
    updateStatusBadge(p.badge, running ? 'running' : job.lastStatus);
    const attemptNote = running?.attempt ? ` (retry ${running.attempt})` : '';
    setText(p.last, shownAt ? `${running ? 'since ' : ''}${formatRelative(shownAt)}${attemptNote}` : '');
    setAttr(p.last, 'datetime', shownAt ?? null);
    setAttr(p.last, 'title', shownAt ? `${running ? 'Running since ' : ''}${formatDateTime(shownAt)}` : null);

    strips.track(job, p.strip, row);

    // Disabled while its change is in flight: the answer sets it. Disabled for want of a role: as listed.
    if (!p.toggle.disabled || p.toggle.dataset.denied === 'true') p.toggle.checked = job.enabled;
    const owner = ownedElsewhere(job);
    for (const [control, ability] of p.guarded) {
      if (owner && p.ownersOnly.includes(control)) permit(control, false, owner);
      else permit(control, mayWithJob(job, ability), whyNotWithJob(job, ability));
    }
    setAttr(p.toggle, 'aria-label', `Enabled: ${job.name}`);
    setAttr(p.run, 'aria-label', `Run ${job.name} now`);
    setAttr(p.history, 'href', `#/executions?jobId=${job.id}`);
    setAttr(p.history, 'aria-label', `History of ${job.name}`);
    for (const button of p.buttons.slice(2)) {
      setAttr(button, 'aria-label', `${button.textContent} ${job.name}`);
    }
  }

  async function toggle(job, input) {
    const enabled = input.checked;
    const refocus = keepFocus(input);
    input.disabled = true;
    try {
      const updated = await api.toggleJob(job.id, enabled);
      input.disabled = false;
      upsert(updated);
      toast(`${updated.name} ${updated.enabled ? 'enabled' : 'disabled'}.`, 'success');
      ctx.refresh();
    } catch (error) {
      input.disabled = false;
      input.checked = !enabled;
      toast(`Could not ${enabled ? 'enable' : 'disable'} ${job.name}: ${error.message}`, 'error');
    }
    refocus();
  }

  async function runNow(job, button) {
    await busy(button, async () => {
      try {
        const result = await api.runJob(job.id);
        toast(result?.message ?? `Started ${job.name}.`, 'success');
        ctx.refreshSoon();
      } catch (error) {
        toast(`Could not run ${job.name}: ${error.message}`, 'error');
      }
    });
  }

  async function removeJob(job, button) {
    const confirmed = await confirmDialog({
      title: 'Delete job?',
      message:
        `Delete “${job.name}”? It stops firing, and its run history, slots and alert settings are ` +
        'deleted with it. It cannot be brought back.',
      confirmLabel: 'Delete job',
      danger: true,
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        await api.deleteJob(job.id);
        jobs = jobs.filter((existing) => existing.id !== job.id);
        render();
        // The row and its button are gone: keep the keyboard focus somewhere sensible.
        section.querySelector('h1').focus();
        toast(`Deleted ${job.name}.`, 'success');
        ctx.refresh();
      } catch (error) {
        toast(`Could not delete ${job.name}: ${error.message}`, 'error');
      }
    });
  }

  return {
    title: 'Jobs',
    show() {},
    schedulerChanged(state) {
      scheduler = state;
      if (loaded) render();
    },
    /** What the caller may do changed: the buttons follow. */
    sessionChanged() {
      render();
    },
    async refresh() {
      jobs = await api.listJobs();
      loaded = true;
      render();
    },
  };
}
