// Start-up and wiring: views, hash routing, polling, the token prompt.

import { forgetToken, onUnauthorized, storedToken } from './api.js';
import { byId, setText } from './dom.js';
import { createExecutionDetailView } from './executionDetail.js';
import { createExecutionsView, executionsHash } from './executions.js';
import { formatTime } from './format.js';
import { createHeader } from './header.js';
import { createJobPageView } from './jobPage.js';
import { createJobsView } from './jobs.js';
import { createPoller } from './poller.js';
import { createSchedulerPanel } from './scheduler.js';
import { promptForToken } from './token.js';

const POLL_INTERVAL_MS = 5000;

const banner = byId('banner');
const updated = byId('updated');
const forgetButton = byId('forget-token');

let current = null;
let authBlocked = false;
const followUps = [];

const ctx = {
  /** Refreshes everything now. */
  refresh: () => poller.now(),
  /** After "Run now": the run shows up when its process ends, so look again a few times soon. */
  refreshSoon() {
    poller.now();
    while (followUps.length) clearTimeout(followUps.pop());
    for (const delay of [1000, 2500, 5000]) followUps.push(setTimeout(() => poller.now(), delay));
  },
  /** The scheduler was paused or resumed: views that show next runs say whether they happen. */
  schedulerChanged(state) {
    for (const view of Object.values(views)) view.schedulerChanged?.(state);
  },
  navigate(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
};

const header = createHeader();
const scheduler = createSchedulerPanel(ctx);
const views = {
  jobs: createJobsView(byId('view-jobs'), ctx),
  executions: createExecutionsView(byId('view-executions'), ctx),
  execution: createExecutionDetailView(byId('view-execution')),
  job: createJobPageView(byId('view-job'), ctx),
};
const sections = {
  jobs: byId('view-jobs'),
  executions: byId('view-executions'),
  execution: byId('view-execution'),
  job: byId('view-job'),
};

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/jobs';
  const [path, search = ''] = raw.split('?');
  const query = Object.fromEntries(new URLSearchParams(search));
  const detail = /^\/executions\/(\d+)$/.exec(path);
  if (detail) return { name: 'execution', params: { id: detail[1] } };
  const job = /^\/jobs\/(\d+)$/.exec(path);
  if (job) return { name: 'job', params: { id: job[1] } };
  if (path === '/executions') {
    const params = {};
    if (/^\d+$/.test(query.jobId ?? '')) params.jobId = query.jobId;
    if (query.status) params.status = query.status;
    if (/^\d+$/.test(query.limit ?? '')) params.limit = query.limit;
    return { name: 'executions', params };
  }
  return { name: 'jobs', params: {} };
}

let lastListHash = '#/executions';

function route({ focus = true } = {}) {
  const { name, params } = parseHash();
  if (name === 'executions') lastListHash = executionsHash(params);
  if (name === 'execution') params.backHash = lastListHash;
  const changedView = current !== views[name];
  current = views[name];
  current.show(params);
  for (const [key, section] of Object.entries(sections)) section.hidden = key !== name;
  for (const tab of document.querySelectorAll('.tab')) {
    const active =
      tab.dataset.view === name ||
      (name === 'execution' && tab.dataset.view === 'executions') ||
      (name === 'job' && tab.dataset.view === 'jobs');
    if (active) tab.setAttribute('aria-current', 'page');
    else tab.removeAttribute('aria-current');
  }
  document.title = `${current.title} · Crondeck`;
  // Moving between views by keyboard: start reading at the new view's heading.
  if (focus && changedView) sections[name].querySelector('h1')?.focus({ preventScroll: true });
  poller.now();
}

function showBanner(message) {
  if (!message) {
    banner.hidden = true;
    banner.textContent = '';
  } else if (banner.textContent !== message) {
    banner.textContent = message;
    banner.hidden = false;
  }
}

async function refreshAll() {
  if (authBlocked) return;
  const view = current;
  const results = await Promise.allSettled([header.refresh(), scheduler.refresh(), view?.refresh()]);
  const failure = results.find((result) => result.status === 'rejected')?.reason;
  if (authBlocked) return;
  if (failure && failure.status !== 401) {
    showBanner(`Could not refresh: ${failure.message}. Retrying every few seconds.`);
  } else if (!failure) {
    showBanner(null);
    setText(updated, `Updated ${formatTime(new Date())}`);
  }
}

const poller = createPoller(refreshAll, POLL_INTERVAL_MS);

onUnauthorized(async () => {
  if (authBlocked) return;
  authBlocked = true;
  poller.stop();
  const rejectedToken = Boolean(storedToken());
  forgetToken();
  forgetButton.hidden = true;
  await promptForToken({ rejectedToken });
  authBlocked = false;
  forgetButton.hidden = false;
  poller.start();
});

forgetButton.hidden = !storedToken();
forgetButton.addEventListener('click', () => {
  forgetToken();
  location.reload();
});
byId('refresh').addEventListener('click', () => {
  // A view that reads something once (a finished execution) reads it again when asked to.
  current?.invalidate?.();
  poller.now();
});
window.addEventListener('hashchange', () => route());

route({ focus: false });
poller.start();
