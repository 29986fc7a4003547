import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import { isPausedAt } from '../domain/schedulerState';
import { readExecutionCounters, summariseRecentDurations } from '../store/executions';
import { countJobs } from '../store/jobs';
import { readSchedulerState } from '../store/scheduler';
import { readLastSuccesses, readSlotCounters } from '../store/slots';
import type { MetricsSnapshot } from './metrics';

export async function readMetricsSnapshot(
  pool: Pool,
  clock: Clock,
  databaseSize: () => Promise<number>,
): Promise<MetricsSnapshot> {
  const [jobs, executions, recentDurations, scheduler, dbSizeBytes, slots, lastSuccesses] = await Promise.all(
    [
      countJobs(pool),
      readExecutionCounters(pool),
      summariseRecentDurations(pool),
      readSchedulerState(pool),
      databaseSize(),
      readSlotCounters(pool),
      readLastSuccesses(pool),
    ],
  );
  return {
    jobs: { enabled: jobs.enabled, disabled: jobs.total - jobs.enabled },
    executions,
    recentDurations,
    schedulerPaused: isPausedAt(scheduler, clock.now()),
    dbSizeBytes,
    slots,
    lastSuccesses,
  };
}
