// The service's REST API as the page uses it. The token (when the service requires one) lives in
// sessionStorage for this tab's session and travels only in the Authorization header: the shared
// SERVICE_API_TOKEN and a Kubernetes token (SERVICE_AUTH=kubernetes) alike.

import { chosenNamespace } from './namespaceChoice.js';

const TOKEN_KEY = 'crondeck.apiToken';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.name = 'ApiError';
    /** HTTP status; 0 when the service could not be reached at all. */
    this.status = status;
  }
}

export function storedToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function storeToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

const unauthorizedListeners = new Set();
const forbiddenListeners = new Set();

/** Called with the ApiError whenever the service answers 401. */
export function onUnauthorized(listener) {
  unauthorizedListeners.add(listener);
}

/**
 * Called with the ApiError whenever the service refuses an action (403 to anything but a read):
 * what the page thought the caller may do is out of date (a RoleBinding changed).
 */
export function onForbidden(listener) {
  forbiddenListeners.add(listener);
}

/**
 * One request with JSON in and out. Resolves to the parsed body; rejects with an ApiError carrying
 * the service's `{ error }` message.
 *
 * `path` is relative to the page (`api/jobs`, never `/api/jobs`): behind a proxy that serves the
 * service under a path prefix (https://host/crondeck/), the API is beside the page, not at the root.
 */
export async function request(
  method,
  path,
  body,
  { token = storedToken(), signal, notifyUnauthorized = true } = {},
) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = { method, headers, cache: 'no-store', signal };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new ApiError(0, 'The service cannot be reached. Is it running?');
  }
  const text = await response.text();
  let data;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message =
      data && typeof data.error === 'string'
        ? data.error
        : `${response.status} ${response.statusText}`.trim();
    const error = new ApiError(response.status, message);
    if (response.status === 401 && notifyUnauthorized)
      for (const listener of unauthorizedListeners) listener(error);
    if (response.status === 403 && method !== 'GET')
      for (const listener of forbiddenListeners) listener(error);
    throw error;
  }
  return data;
}

const enc = encodeURIComponent;

function query(params) {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([key, value]) => `${enc(key)}=${enc(value)}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The namespace the page shows, as a list's query parameter (none when it shows them all). */
const inChosenNamespace = () => ({ namespace: chosenNamespace() || undefined });

export const api = {
  health: () => request('GET', 'health'),
  stats: () => request('GET', `api/stats${query(inChosenNamespace())}`),
  /** Who the caller is and what they may do in each namespace (docs/api.md#session). */
  session: () => request('GET', 'api/session'),

  listJobs: () => request('GET', `api/jobs${query(inChosenNamespace())}`),
  getJob: (id) => request('GET', `api/jobs/${enc(id)}`),
  createJob: (job) => request('POST', 'api/jobs', job),
  updateJob: (id, job) => request('PUT', `api/jobs/${enc(id)}`, job),
  deleteJob: (id) => request('DELETE', `api/jobs/${enc(id)}`),
  toggleJob: (id, enabled) => request('PATCH', `api/jobs/${enc(id)}/toggle`, { enabled }),
  runJob: (id) => request('POST', `api/jobs/${enc(id)}/run`),

  getAlerts: (id) => request('GET', `api/jobs/${enc(id)}/alerts`),
  putAlerts: (id, config) => request('PUT', `api/jobs/${enc(id)}/alerts`, config),
  deleteAlerts: (id) => request('DELETE', `api/jobs/${enc(id)}/alerts`),
  alertHistory: (id, limit) => request('GET', `api/jobs/${enc(id)}/alerts/history${query({ limit })}`),

  // One job's runs are that job's, whichever namespace the page shows.
  listExecutions: ({ jobId, status, limit }) =>
    request('GET', `api/executions${query({ jobId, status, limit, ...(jobId ? {} : inChosenNamespace()) })}`),
  /** Finished executions and attempts in progress (which the API lists only when asked), newest first. */
  listExecutionsWithRunning: async ({ jobId, limit }) => {
    const [finished, running] = await Promise.all([
      api.listExecutions({ jobId, limit }),
      api.listExecutions({ jobId, status: 'running', limit }),
    ]);
    const newestFirst = (a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt) || b.id - a.id;
    return [...running, ...finished].sort(newestFirst).slice(0, Number(limit));
  },
  getExecution: (id) => request('GET', `api/executions/${enc(id)}`),

  /** The job's judged slots in [from, to], newest first (ISO 8601 instants; limit 1–1000). */
  listSlots: (id, { from, to, limit } = {}) =>
    request('GET', `api/jobs/${enc(id)}/slots${query({ from, to, limit })}`),
  /** Runs every slot in [from, to] once; resolves to `{ slots }`, the number it runs. */
  backfill: (id, { from, to, concurrency }) =>
    request('POST', `api/jobs/${enc(id)}/backfill`, { from, to, concurrency }),

  schedulerStatus: () => request('GET', 'api/scheduler/status'),
  pause: (until) => request('POST', 'api/scheduler/pause', until ? { until } : {}),
  resume: () => request('POST', 'api/scheduler/resume'),

  describeCron: (expr, timezone, signal) =>
    request('GET', `api/cron/describe${query({ expr, timezone })}`, undefined, { signal }),
};
