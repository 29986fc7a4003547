import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import { countRecentOutcomes } from '../store/executions';
import { countJobs } from '../store/jobs';
import type { NamespaceFilter } from '../store/namespaceFilter';

export interface Stats {
  totalJobs: number;
  enabledJobs: number;
  recentSuccesses: number;
  recentFailures: number;
}

const RECENT_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Job counts and the outcomes of the last 24 hours (failures include timeouts); of the jobs of
 * some namespaces only with `filter` (those a caller may list, or `?namespace=`).
 */
export async function computeStats(
  pool: Pool,
  clock: Clock,
  filter: NamespaceFilter | null = null,
): Promise<Stats> {
  const since = new Date(clock.now().getTime() - RECENT_WINDOW_MS);
  const [jobs, recent] = await Promise.all([
    countJobs(pool, filter),
    countRecentOutcomes(pool, since, filter),
  ]);
  return {
    totalJobs: jobs.total,
    enabledJobs: jobs.enabled,
    recentSuccesses: recent.successes,
    recentFailures: recent.failures,
  };
}
