// One job: whether it fires (and why not, when its alert policy suspended it), its last runs'
// durations against the policy's envelope, and its alerts, the muted and suppressed ones included.

import { api } from './api.js';
import { createAlertHistory } from './alertHistory.js';
import { openAlertsDialog } from './alerts.js';
import { openBackfillDialog } from './backfillDialog.js';
import { h, replaceChildren, setText } from './dom.js';
import { durationChart } from './durationChart.js';
import { executionsHash } from './executions.js';
import { formatDateTime, formatDuration, formatRelative } from './format.js';
import { mayWithJob, whyNotWithJob } from './session.js';
import { createSlotHistory } from './slotHistory.js';
import { busy, permit, statusBadge, toast, updateStatusBadge } from './ui.js';
import { backfillRefusal, watchedOrigin } from './watched.js';

const CHART_RUNS = 50;

/** The policy in a sentence or two, for the page; null without one. */
function describePolicy(policy) {
  if (!policy) return null;
  const parts = [];
  if (policy.afterConsecutiveFailures)
    parts.push(`alerts from failed run ${policy.afterConsecutiveFailures} in a row`);
  if (policy.repeatEverySeconds)
    parts.push(`reminds at most every ${formatDuration(policy.repeatEverySeconds * 1000)}`);
  if (policy.recovery) parts.push('says when it recovers');
  if (policy.maxDurationSeconds)
    parts.push(`overrun after ${formatDuration(policy.maxDurationSeconds * 1000)}`);
  if (policy.minDurationSeconds)
    parts.push(`too fast under ${formatDuration(policy.minDurationSeconds * 1000)}`);
  if (policy.suspendAfterFailures)
    parts.push(`suspended after ${policy.suspendAfterFailures} failed runs in a row`);
  for (const window of policy.maintenance ?? []) {
    parts.push(
      `muted for ${formatDuration(window.durationSeconds * 1000)} from “${window.schedule}”` +
        (window.timezone ? ` (${window.timezone})` : ''),
    );
  }
  return parts.join('; ');
}

export function createJobPageView(section, ctx) {
  let jobId = null;
  let job = null;

  const title = h('h1', { id: 'job-title', tabindex: -1 }, 'Loading…');
  const badge = statusBadge(null);
  const state = h('p', { class: 'muted' });
  const suspendedText = h('span', {});
  const resume = h('button', {
    class: 'btn btn-small btn-primary',
    type: 'button',
    text: 'Switch on',
    onclick: () => switchOn(),
  });
  const suspended = h(
    'div',
    { class: 'notice suspended-notice', role: 'status', hidden: true },
    h('strong', {}, 'Suspended by its alert policy. '),
    suspendedText,
    ' ',
    resume,
  );
  const runButton = h('button', {
    class: 'btn btn-small btn-primary',
    type: 'button',
    text: 'Run now',
    onclick: (event) => runNow(event.currentTarget),
  });
  const alertsButton = h('button', {
    class: 'btn btn-small btn-ghost',
    type: 'button',
    text: 'Edit alerts',
    onclick: () => job && openAlertsDialog(job, { canChange: mayWithJob(job, 'updateAlerts') }),
  });
  const backfillButton = h('button', {
    class: 'btn btn-small btn-ghost',
    type: 'button',
    text: 'Backfill…',
    onclick: () => job && openBackfillDialog(job, { onStarted: () => ctx.refreshSoon() }),
  });
  const historyLink = h('a', { class: 'btn btn-small btn-ghost', text: 'All runs' });
  // Kubernetes mode: where the job's ScheduledJob lives, and who last changed it.
  const ownership = h('p', { class: 'muted job-ownership', hidden: true });
  const policyText = h('p', { class: 'policy-summary' });
  const chartBox = h('div', { class: 'chart-box' });
  const history = createAlertHistory();
  const slots = createSlotHistory();

  const loading = h('p', { class: 'muted' }, 'Loading…');
  const missingText = h('p', {});
  const missing = h(
    'div',
    { class: 'empty', hidden: true },
    h('p', { class: 'empty-title' }, 'No such job'),
    missingText,
  );
  // Everything about a job that exists: hidden until it has loaded, and for a job the API does
  // not know (a deleted one, a mistyped address), where buttons would act on nothing.
  const content = h(
    'div',
    { hidden: true },
    state,
    ownership,
    suspended,
    h('div', { class: 'actions' }, runButton, backfillButton, alertsButton, historyLink),
    h('h2', { class: 'section-title' }, 'Durations of the last runs'),
    chartBox,
    h('h2', { class: 'section-title' }, 'Slots'),
    slots.element,
    h('h2', { class: 'section-title' }, 'Alerts'),
    policyText,
    history.element,
  );

  replaceChildren(
    section,
    h('a', { class: 'back', href: '#/jobs' }, '← Back to jobs'),
    h('div', { class: 'view-head detail-head' }, title, badge),
    loading,
    missing,
    content,
  );

  /** Shows one of: loading, the job, or that there is no such job. */
  function showPart(part) {
    loading.hidden = part !== loading;
    missing.hidden = part !== missing;
    content.hidden = part !== content;
    badge.hidden = part !== content;
  }

  async function switchOn() {
    await busy(resume, async () => {
      try {
        await api.toggleJob(jobId, true);
        toast(`${job?.name ?? 'The job'} is switched on again.`, 'success');
        ctx.refresh();
      } catch (error) {
        toast(`Could not switch it on: ${error.message}`, 'error');
      }
    });
  }

  async function runNow(button) {
    await busy(button, async () => {
      try {
        const result = await api.runJob(jobId);
        toast(result?.message ?? 'Started.', 'success');
        ctx.refreshSoon();
      } catch (error) {
        toast(`Could not run it: ${error.message}`, 'error');
      }
    });
  }

  /** The buttons of what the caller may do with the job (the session's `can` in its namespace). */
  function permitActions() {
    const refusal = backfillRefusal(job);
    for (const [control, ability] of [
      [runButton, 'run'],
      [backfillButton, 'run'],
      [alertsButton, 'getAlerts'],
      [resume, 'update'],
    ]) {
      if (refusal && control === backfillButton) permit(control, false, refusal);
      else permit(control, mayWithJob(job, ability), whyNotWithJob(job, ability));
    }
  }

  function render(current, config, executions, alerts) {
    job = current;
    permitActions();
    setText(title, current.name);
    const owned = [
      watchedOrigin(current),
      current.namespace && !current.cronJob ? `Namespace ${current.namespace}` : null,
      current.changedBy ? `last changed by ${current.changedBy}` : null,
    ].filter(Boolean);
    ownership.hidden = owned.length === 0;
    setText(ownership, owned.join(' · '));
    updateStatusBadge(badge, current.running ? 'running' : current.lastStatus);
    const fires = current.enabled
      ? current.nextRun
        ? `Next run ${formatRelative(current.nextRun)} (${formatDateTime(current.nextRun)} your time).`
        : 'Enabled.'
      : 'Does not fire on its schedule.';
    setText(state, `${current.schedule} · ${current.timezone ?? 'service time zone'} · ${fires}`);
    suspended.hidden = !current.suspendedReason;
    setText(suspendedText, current.suspendedReason ?? '');
    historyLink.setAttribute('href', executionsHash({ jobId: String(current.id) }));
    const policy = config?.policy;
    setText(
      policyText,
      mayWithJob(current, 'getAlerts')
        ? (describePolicy(policy) ?? 'No alert policy: every matching run alerts.')
        : whyNotWithJob(current, 'getAlerts'),
    );
    replaceChildren(
      chartBox,
      durationChart(executions, {
        minMs: policy?.minDurationSeconds ? policy.minDurationSeconds * 1000 : undefined,
        maxMs: policy?.maxDurationSeconds ? policy.maxDurationSeconds * 1000 : undefined,
      }),
    );
    history.update(alerts);
  }

  return {
    title: 'Job',
    /** What the caller may do changed: the buttons follow. */
    sessionChanged() {
      permitActions();
    },
    show(params) {
      if (params.id !== jobId) {
        jobId = params.id;
        job = null;
        setText(title, `Job ${jobId}`);
        showPart(loading);
      }
      slots.show(jobId);
    },
    async refresh() {
      const id = jobId;
      let current;
      try {
        current = await api.getJob(id);
      } catch (error) {
        if (error.status !== 404) throw error;
        if (id === jobId) {
          job = null;
          setText(title, `Job ${id}`);
          setText(missingText, `There is no job ${id}: it was deleted, or never existed.`);
          showPart(missing);
        }
        return;
      }
      if (id !== jobId) return;
      // Alerts are read only by those whose role lets them: for others they would answer 403.
      const readsAlerts = mayWithJob(current, 'getAlerts');
      const [config, executions, alerts] = await Promise.all([
        readsAlerts ? api.getAlerts(id) : null,
        api.listExecutions({ jobId: id, limit: CHART_RUNS }),
        readsAlerts ? api.alertHistory(id) : [],
        slots.refresh(),
      ]);
      if (id !== jobId) return;
      render(current, config, executions, alerts);
      showPart(content);
    },
  };
}
