// Who the page is signed in as and what they may do, from GET /api/session (docs/api.md#session),
// kept until something says it changed: a sign-in, a change of namespace, an action the service
// refused (403), a job in a namespace the kept session does not name. The service checks every
// request anyway: this only spares people buttons that would answer 403.

import { api } from './api.js';
import { chooseNamespace, chosenNamespace } from './namespaceChoice.js';

/** Each ability of a namespace, as the cluster's RBAC names what it takes (docs/api.md#access-in-a-cluster). */
const ABILITY_RULES = {
  list: 'list scheduledjobs',
  get: 'get scheduledjobs',
  create: 'create scheduledjobs',
  update: 'update scheduledjobs',
  delete: 'delete scheduledjobs',
  run: 'create scheduledjobs/run',
  getAlerts: 'get alertconfigs',
  updateAlerts: 'update alertconfigs',
  getCronJobs: 'get cronjobs',
  patchCronJobs: 'patch cronjobs',
  createJobs: 'create jobs',
  getCronJobWatches: 'get cronjobwatches',
  updateCronJobWatches: 'update cronjobwatches',
};

/**
 * What each ability takes for a watched CronJob's job (`source: cronjob`), which the service checks
 * on the CronJob as `kubectl` would be checked (docs/api.md#access-in-a-cluster).
 */
const WATCHED_ABILITIES = {
  get: 'getCronJobs',
  update: 'patchCronJobs',
  run: 'createJobs',
  getAlerts: 'getCronJobWatches',
  updateAlerts: 'updateCronJobWatches',
};

function abilityFor(job, ability) {
  return job?.source === 'cronjob' ? (WATCHED_ABILITIES[ability] ?? ability) : ability;
}

/** Whether the caller may do `ability` with `job` (null: a job not loaded yet, as `may` with none). */
export function mayWithJob(job, ability) {
  return may(job?.namespace ?? null, abilityFor(job, ability));
}

/** Why a control of `job` is off (see `whyNot`). */
export function whyNotWithJob(job, ability) {
  return whyNot(job?.namespace ?? null, abilityFor(job, ability));
}

let current = null;
let loading = null;
const listeners = new Set();
/** Namespaces of jobs the kept session did not name, already asked about once. */
const askedAbout = new Set();

/** Called after every change of the kept session (loaded, refreshed, forgotten). */
export function onSessionChange(listener) {
  listeners.add(listener);
}

export function currentSession() {
  return current;
}

/** Keeps `session` (the answer of GET /api/session) and tells the page. */
export function keepSession(session) {
  current = session;
  // A namespace the caller may no longer list (or a service without namespaces) shows them all.
  if (chosenNamespace() && !listableNamespaces().includes(chosenNamespace())) chooseNamespace('');
  for (const listener of listeners) listener(current);
}

export function forgetSession() {
  current = null;
  askedAbout.clear();
  for (const listener of listeners) listener(current);
}

/** Reads the session again; concurrent calls share one request. */
export function refreshSession() {
  loading ??= api
    .session()
    .then((session) => {
      keepSession(session);
      return session;
    })
    .finally(() => {
      loading = null;
    });
  return loading;
}

/** The namespaces the caller may list, which the namespace selector offers; none without namespaces. */
export function listableNamespaces() {
  return (current?.namespaces ?? []).filter((each) => each.can?.list).map((each) => each.name);
}

/** The namespaces where the caller may create jobs. */
export function creatableNamespaces() {
  return (current?.namespaces ?? []).filter((each) => each.can?.create).map((each) => each.name);
}

/** Whether the service's jobs have namespaces (Kubernetes mode), by the kept session. */
function hasNamespaces() {
  return (current?.namespaces ?? []).length > 0;
}

/**
 * Whether the caller may do `ability` (a key of the session's `can`) with the jobs of `namespace`.
 * A job without one (local mode) is anyone's who reached the page; a namespaced job waits for the
 * session; a namespace the kept session does not name (its first job is newer) asks it again.
 */
export function may(namespace, ability) {
  if (namespace === null || namespace === undefined) return true;
  if (!current) return false;
  const entry = current.namespaces?.find((each) => each.name === namespace);
  if (entry) return Boolean(entry.can?.[ability]);
  if (!askedAbout.has(namespace)) {
    askedAbout.add(namespace);
    refreshSession().catch(() => {});
  }
  return false;
}

/** Whether the caller may create a job in the namespace the page shows (any of theirs, showing all). */
export function mayCreate() {
  if (!hasNamespaces()) return true;
  const chosen = chosenNamespace();
  return chosen ? may(chosen, 'create') : creatableNamespaces().length > 0;
}

/** Whether the caller may pause and resume the scheduler; until the session is known, as before. */
export function mayPauseResume() {
  return current ? current.pauseResume !== false : true;
}

/** Why a control is off: the role that does not allow it, or that the page is still asking. */
export function whyNot(namespace, ability) {
  if (!current) return 'Checking what you may do…';
  return `Your Kubernetes role does not allow this in namespace “${namespace}” (${ABILITY_RULES[ability] ?? ability}).`;
}
