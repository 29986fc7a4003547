import { Router } from 'express';
import type { Pool } from 'pg';
import type { Logger } from '../../logging/logger';
import type { SchedulerControl } from '../../scheduling/schedulerControl';
import { countJobs } from '../../store/jobs';
import { bearerTokenCheck } from '../auth';

export interface HealthOptions {
  /** SERVICE_API_TOKEN: a caller that sends it hears why the database is unavailable. */
  apiToken: string | null;
  /** The database's size, which may be a few seconds old (metrics/databaseSize.ts). */
  databaseSize: () => Promise<number>;
  logger: Logger;
}

/**
 * `/health`: open without a token, answers 503 when the database cannot be reached. The reason
 * (a driver message naming the database host and port) goes to the log and to callers with the API
 * token only: the open answer must not map the network for anyone who can reach the port.
 */
export function healthRouter(pool: Pool, scheduler: SchedulerControl, options: HealthOptions): Router {
  const router = Router();
  const authenticated = options.apiToken ? bearerTokenCheck(options.apiToken) : () => false;
  let lastLogged: string | null = null;
  router.get('/', async (req, res) => {
    try {
      const [jobs, dbSizeBytes, state] = await Promise.all([
        countJobs(pool),
        options.databaseSize(),
        scheduler.status(),
      ]);
      lastLogged = null;
      res.json({
        status: 'ok',
        totalJobs: jobs.total,
        enabledJobs: jobs.enabled,
        dbSizeBytes,
        paused: state.paused,
        pausedUntil: state.until,
      });
    } catch (error) {
      const reason = (error as Error).message;
      // Once per distinct reason: monitors poll /health every few seconds through a whole outage.
      if (reason !== lastLogged) {
        options.logger.warn('health: database unreachable', { reason });
        lastLogged = reason;
      }
      const detail = authenticated(req.headers.authorization) ? `: ${reason}` : '';
      res.status(503).json({ status: 'unavailable', error: `database unavailable${detail}` });
    }
  });
  return router;
}
