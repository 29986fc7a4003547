// The header: health of the service and the numbers of the stats endpoint.

import { api } from './api.js';
import { byId, setAttr, setText } from './dom.js';
import { formatBytes } from './format.js';

export function createHeader() {
  const health = byId('health');
  const total = byId('stat-total');
  const enabled = byId('stat-enabled');
  const successes = byId('stat-successes');
  const failures = byId('stat-failures');
  const db = byId('stat-db');

  function showHealth(kind, text, title) {
    const className = `pill pill-${kind}`;
    if (health.className !== className) health.className = className;
    setText(health, text);
    setAttr(health, 'title', title ?? null);
  }

  async function refreshHealth() {
    try {
      const body = await api.health();
      const ok = body?.status === 'ok';
      showHealth(ok ? 'ok' : 'warn', ok ? 'Healthy' : `Status: ${body?.status ?? 'unknown'}`);
      setText(db, formatBytes(body?.dbSizeBytes));
    } catch (error) {
      if (error.status === 0) showHealth('bad', 'Unreachable', error.message);
      else showHealth('bad', 'Unhealthy', error.message);
      throw error;
    }
  }

  async function refreshStats() {
    const stats = await api.stats();
    setText(total, stats.totalJobs);
    setText(enabled, stats.enabledJobs);
    setText(successes, stats.recentSuccesses);
    setText(failures, stats.recentFailures);
    failures.parentElement.classList.toggle('stat-alarm', stats.recentFailures > 0);
  }

  return {
    async refresh() {
      const results = await Promise.allSettled([refreshHealth(), refreshStats()]);
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
