// Start-up and wiring: views, hash routing, polling, signing in and what the session allows.

import { forgetToken, onForbidden, onUnauthorized, storedToken } from './api.js';
import { createAccountPanel } from './account.js';
import { byId, setText } from './dom.js';
import { createExecutionDetailView } from './executionDetail.js';
import { createExecutionsView, executionsHash } from './executions.js';
import { formatTime } from './format.js';
import { createHeader } from './header.js';
import { createJobPageView } from './jobPage.js';
import { createJobsView } from './jobs.js';
import { createPoller } from './poller.js';
import { createSchedulerPanel } from './scheduler.js';
import { currentSession, forgetSession, keepSession, onSessionChange, refreshSession } from './session.js';
import { promptForToken, tokenKindOf } from './token.js';

const POLL_INTERVAL_MS = 5000;

const banner = byId('banner');
const updated = byId('updated');

let current = null;
let authBlocked = false;
/** Whether the views were shown: the first load of the session comes before them. */
let started = false;
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
const account = createAccountPanel({
  // Another namespace: its jobs at once, and the session again (what the caller may do there).
  onNamespaceChange() {
    refreshSession().catch(() => {});
    poller.now();
  },
});
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
  // A session the first load could not read (the cluster's API server was down) is asked again.
  const session = currentSession() ? null : refreshSession();
  const results = await Promise.allSettled([header.refresh(), scheduler.refresh(), view?.refresh(), session]);
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

onUnauthorized(async (error) => {
  if (authBlocked) return;
  authBlocked = true;
  poller.stop();
  const rejectedToken = Boolean(storedToken());
  // The kind of token is the kept session's, while there is one; else the 401 says.
  const kind = currentSession()?.auth === 'kubernetes' ? 'kubernetes' : tokenKindOf(error.message);
  forgetToken();
  forgetSession();
  const session = await promptForToken({ rejectedToken, refusal: error.message, kind });
  keepSession(session);
  authBlocked = false;
  if (started) poller.start();
  else begin();
});

// A refused action: the page's idea of what the caller may do is out of date.
onForbidden(() => {
  refreshSession().catch(() => {});
});

onSessionChange(() => {
  account.render();
  scheduler.sessionChanged();
  for (const view of Object.values(views)) view.sessionChanged?.();
});

byId('refresh').addEventListener('click', () => {
  // A view that reads something once (a finished execution) reads it again when asked to.
  current?.invalidate?.();
  poller.now();
});
window.addEventListener('hashchange', () => {
  if (started) route();
});

function begin() {
  started = true;
  route({ focus: false });
  poller.start();
}

// The session first: what the caller may do decides which controls are on. A 401 asks for a token
// (above), and the page starts once one is accepted; any other failure starts it all the same, and
// the polls ask for the session again.
account.render();
refreshSession().then(begin, (error) => {
  if (error.status !== 401) begin();
});
