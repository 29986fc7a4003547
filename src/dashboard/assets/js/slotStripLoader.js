// Fills the jobs table's slot strips without holding up the table: a strip is asked for only once
// its row is on screen (or near it), at most a few requests at a time, and again only when the
// job's last slot changed (a new slot was judged, or the last one turned late) or the strip is
// older than a minute (an older missed slot may have turned late since).

import { api } from './api.js';
import { withRunStatus } from './slotRuns.js';

const STRIP_SLOTS = 16;
const MAX_REQUESTS_IN_FLIGHT = 3;
const MAX_AGE_MS = 60_000;

/** What the job list says of the job's latest slot: a strip showing another one is out of date. */
function lastSlotKey(job) {
  return job.lastSlot ? `${job.lastSlot.scheduledAt} ${job.lastSlot.outcome}` : null;
}

export function createSlotStripLoader() {
  /** jobId → { jobId, strip, row, key, loadedKey, loadedAt, visible, queued, loading } */
  const entries = new Map();
  const byElement = new WeakMap();
  const queue = [];
  let inFlight = 0;

  // Without IntersectionObserver every strip counts as on screen; the concurrency bound still holds.
  const observer =
    typeof window.IntersectionObserver === 'function'
      ? new window.IntersectionObserver(onIntersect, { rootMargin: '200px 0px' })
      : null;

  function onIntersect(changes) {
    for (const change of changes) {
      const entry = byElement.get(change.target);
      if (!entry) continue;
      entry.visible = change.isIntersecting;
      if (entry.visible) consider(entry);
    }
  }

  function stale(entry) {
    if (entry.key === null) return false;
    return entry.key !== entry.loadedKey || Date.now() - entry.loadedAt > MAX_AGE_MS;
  }

  function consider(entry) {
    if (!entry.visible || entry.queued || entry.loading || !stale(entry)) return;
    entry.queued = true;
    queue.push(entry);
    pump();
  }

  function pump() {
    while (inFlight < MAX_REQUESTS_IN_FLIGHT && queue.length > 0) {
      const entry = queue.shift();
      entry.queued = false;
      if (entries.get(entry.jobId) !== entry || !stale(entry)) continue;
      load(entry);
    }
  }

  async function load(entry) {
    inFlight += 1;
    entry.loading = true;
    const key = entry.key;
    try {
      const slots = await api.listSlots(entry.jobId, { limit: STRIP_SLOTS });
      entry.strip.update(await withRunStatus(entry.jobId, slots));
    } catch (error) {
      // Not retried before it is stale: a failing answer would otherwise be asked for again at once.
      entry.strip.showError(error.message);
    } finally {
      entry.loadedKey = key;
      entry.loadedAt = Date.now();
      entry.loading = false;
      inFlight -= 1;
      consider(entry);
      pump();
    }
  }

  return {
    /**
     * Called for each row as it is rendered: shows or (lazily) refreshes the strip of the job.
     * `row` is what is watched for being on screen (the strip itself is hidden while empty).
     */
    track(job, strip, row) {
      let entry = entries.get(job.id);
      if (!entry || entry.strip !== strip) {
        if (entry) observer?.unobserve(entry.row);
        entry = {
          jobId: job.id,
          strip,
          row,
          key: null,
          loadedKey: null,
          loadedAt: 0,
          visible: !observer,
          queued: false,
          loading: false,
        };
        entries.set(job.id, entry);
        byElement.set(row, entry);
        observer?.observe(row);
      }
      entry.key = lastSlotKey(job);
      strip.setJobName(job.name);
      if (entry.key === null) strip.showEmpty();
      else consider(entry);
    },
    /** Forgets the strips of jobs no longer shown. */
    retain(jobIds) {
      for (const [jobId, entry] of entries) {
        if (jobIds.has(jobId)) continue;
        observer?.unobserve(entry.row);
        entries.delete(jobId);
      }
    },
  };
}
