import { Router } from 'express';
import type { Pool } from 'pg';
import type { SchedulerControl } from '../../scheduling/schedulerControl';
import { countJobs } from '../../store/jobs';
import { databaseSizeBytes } from '../../store/scheduler';

/** `/health`: open without a token, answers 503 when the database cannot be reached. */
export function healthRouter(pool: Pool, scheduler: SchedulerControl): Router {
  const router = Router();
  router.get('/', async (_req, res) => {
    try {
      const [jobs, dbSizeBytes, state] = await Promise.all([
        countJobs(pool),
        databaseSizeBytes(pool),
        scheduler.status(),
      ]);
      res.json({
        status: 'ok',
        totalJobs: jobs.total,
        enabledJobs: jobs.enabled,
        dbSizeBytes,
        paused: state.paused,
        pausedUntil: state.until,
      });
    } catch (error) {
      res
        .status(503)
        .json({ status: 'unavailable', error: `database unreachable: ${(error as Error).message}` });
    }
  });
  return router;
}
