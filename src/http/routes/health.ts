import { Router } from 'express';
import type { Pool } from 'pg';
import type { Logger } from '../../logging/logger';
import type { SchedulerControl } from '../../scheduling/schedulerControl';
import { countJobs } from '../../store/jobs';
import { bearerTokenCheck } from '../auth';
import { answerJson } from '../frontDoor/answerJson';
import type { FrontHandler } from '../server';

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

/** Whether the service is shutting down: set at SIGTERM, before the listener closes. */
export interface ShutdownState {
  readonly draining: boolean;
}

const ALIVE = Buffer.from(JSON.stringify({ status: 'ok' }));
const DRAINING = Buffer.from(JSON.stringify({ status: 'unavailable', error: 'shutting down' }));
/** `/livez` and `/health` as Express routes them: any case, a trailing slash, a query. */
const PROBE_PATH = /^\/(livez|health)\/?(?:\?|$)/i;

/**
 * Answered in front of the app (and of its database), then hands every other request to `next`:
 *
 * - `/livez` (liveness): 200 `{ status: "ok" }` while the process answers, whatever the database
 *   does. A liveness probe on `/health` would restart every replica through a database outage, and
 *   the restarted ones would exit while it lasts.
 * - while the service drains (`state.draining`), `/health` (readiness) answers 503, so that load
 *   balancers that probe it stop sending requests, and every answer says `Connection: close`, so
 *   that clients and proxies open their next connection to another replica.
 */
export function probesInFront(state: ShutdownState, next: FrontHandler): FrontHandler {
  return (req, res, toApp) => {
    const draining = state.draining;
    if (draining) res.setHeader('Connection', 'close');
    const probe = (req.method === 'GET' || req.method === 'HEAD') && PROBE_PATH.exec(req.url ?? '');
    if (probe && probe[1]!.toLowerCase() === 'livez') answerJson(res, 200, ALIVE);
    else if (probe && draining) answerJson(res, 503, DRAINING);
    else next(req, res, toApp);
  };
}
