import cors from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import type { Pool } from 'pg';
import type { Clock } from '../domain/clock';
import { alertsRouter, type AlertsApi } from '../alerts/routes';
import { dashboardRouter } from '../dashboard/router';
import type { Logger } from '../logging/logger';
import { mailboxRouter } from '../mailbox/routes';
import { cachedDatabaseSize } from '../caching/databaseSize';
import type { ExecutionLists } from '../caching/executionLists';
import { METRICS_CONTENT_TYPE, type ServiceMetrics } from '../metrics/metrics';
import { readMetricsSnapshot } from '../metrics/snapshot';
import type { JobService } from '../scheduling/jobService';
import type { ReportIngest } from '../scheduling/reportIngest';
import type { SchedulerControl } from '../scheduling/schedulerControl';
import { computeStats } from '../scheduling/stats';
import { listFilterOf } from './listFilter';
import { requireBearerToken } from './auth';
import { apiServerUnavailableHandler } from '../auth/apiServerUnavailable';
import { kubernetesAuth } from '../auth/kubernetesAuth';
import type { Reviewer } from '../auth/reviewer';
import { sessionRouter } from '../auth/session';
import { HttpError } from '../httpKit/httpError';
import { errorHandler } from './errors';
import { frontDoorFailures } from './frontDoor/handOff';
import { BODY_LIMIT_BYTES } from './jsonBodies';
import { requireJsonContentType } from './jsonContentType';
import { localBrowsersOnly } from './localBrowsersOnly';
import { runtimeErrorHandler } from './runtimeErrors';
import { cronRouter } from './routes/cron';
import { executionsRouter } from './routes/executions';
import { healthRouter } from './routes/health';
import { jobsRouter } from './routes/jobs';
import { reportsRouter } from './routes/reports';
import { schedulerRouter } from './routes/scheduler';
import { slotClaimRouter, slotsRouter } from './routes/slots';
import type { SlotService } from '../scheduling/slotService';

export interface AppDeps {
  pool: Pool;
  /** The label filters' connections (see `Database.genericPlanPool`). */
  genericPlanPool: Pool;
  logger: Logger;
  clock: Clock;
  jobs: JobService;
  /** The executions list's rendered pages, shared with the front door. */
  executionLists: ExecutionLists;
  scheduler: SchedulerControl;
  /** The slot ledger: its history, backfills, and the claims runners make. */
  slots: SlotService;
  metrics: ServiceMetrics;
  alerts: AlertsApi;
  /** Records the attempts pods report; they authenticate with their job's report token. */
  reports: ReportIngest;
  /** The secret behind the per-job report tokens (`SERVICE_REPORT_SECRET`); null refuses reports. */
  reportSecret: string | null;
  /** When set, every `/api/*` request needs `Authorization: Bearer <token>`. */
  apiToken: string | null;
  /**
   * SERVICE_AUTH=kubernetes: the cluster's reviews, which then authenticate and authorize every
   * `/api/*` request in the API token's place (auth/kubernetesAuth.ts).
   */
  reviewer?: Reviewer | null;
  /** Kubernetes mode: the namespace the service writes jobs to (lists' `?namespace=`); null locally. */
  kubernetesHome?: string | null;
  defaultTimeZone: string;
}

/** Builds the whole HTTP service from its parts; `cli.ts` wires real parts, tests wire test ones. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const corsHeaders = cors();
  // Before the API's body parser and token: reports carry larger bodies and their own token. And
  // before the guard below: that token is a credential no page has, and pods address the service
  // by whatever name their cluster gives it.
  app.use(
    '/api/jobs/:id/reports',
    corsHeaders,
    reportsRouter({
      ingest: deps.reports,
      reportSecret: deps.reportSecret,
      logger: deps.logger,
      clock: deps.clock,
    }),
  );
  // Like reports: a runner claims its slot with its job's report token.
  app.use(
    '/api/jobs/:id/slots/claim',
    corsHeaders,
    slotClaimRouter({ slots: deps.slots, reportSecret: deps.reportSecret, logger: deps.logger }),
  );
  // Without a token, CORS open to any origin would let any page run commands here: only pages on
  // this machine, and requests addressed to it, are answered (localBrowsersOnly.ts, docs/api.md).
  // Before CORS, so that a page elsewhere has even its preflight refused.
  // Kubernetes auth asks for a cluster's token, which no page elsewhere has either.
  const reviewer = deps.reviewer ?? null;
  const home = deps.kubernetesHome ?? null;
  if (deps.apiToken === null && reviewer === null) app.use(localBrowsersOnly(deps.logger));
  app.use(corsHeaders);
  // What the front door took and failed (http/frontDoor/): answered by the handlers below.
  app.use(frontDoorFailures());
  // Not strict: a scalar body (`42`, `null`) is valid JSON and gets the schemas' "must be a JSON
  // object" rather than a parse error.
  app.use(express.json({ limit: BODY_LIMIT_BYTES, strict: false }));

  const databaseSize = cachedDatabaseSize(deps.pool, deps.clock);
  app.use(
    '/health',
    healthRouter(deps.pool, deps.scheduler, { apiToken: deps.apiToken, logger: deps.logger, databaseSize }),
  );
  app.get('/metrics', async (_req, res) => {
    const body = await deps.metrics.render(await readMetricsSnapshot(deps.pool, deps.clock, databaseSize));
    // res.end, not res.send: send would append a charset to the exact content type of the spec.
    res.setHeader('Content-Type', METRICS_CONTENT_TYPE);
    res.end(body);
  });

  const api = express.Router();
  if (reviewer) {
    if (home === null) throw new Error('Kubernetes auth needs the Kubernetes runtime and its namespace');
    api.use(kubernetesAuth({ reviewer, pool: deps.pool, home, logger: deps.logger }));
  } else if (deps.apiToken) {
    api.use(requireBearerToken(deps.apiToken));
  }
  api.use(requireJsonContentType(['/messages']));
  api.use(
    '/session',
    sessionRouter({
      mode: reviewer ? 'kubernetes' : deps.apiToken ? 'token' : 'open',
      pool: deps.pool,
      home,
      reviewer,
    }),
  );
  api.use('/jobs/:id/alerts', alertsRouter(deps.alerts));
  api.use('/jobs/:id', slotsRouter(deps.slots));
  api.use('/jobs', jobsRouter(deps.jobs, home));
  api.use('/executions', executionsRouter(deps.pool, deps.executionLists, home));
  api.use('/scheduler', schedulerRouter(deps.scheduler));
  api.get('/stats', async (req, res) => {
    res.json(await computeStats(deps.pool, deps.clock, listFilterOf(req, home)));
  });
  api.use('/cron', cronRouter(deps.clock, deps.defaultTimeZone));
  api.use(mailboxRouter(deps.pool, deps.genericPlanPool));
  api.use(noSuchEndpoint);
  app.use('/api', api);

  app.use(dashboardRouter());
  // Outside /api too (a POST to /metrics, a page that does not exist): JSON, as everywhere else.
  app.use(noSuchEndpoint);
  app.use(apiServerUnavailableHandler);
  app.use(runtimeErrorHandler(deps.logger));
  app.use(errorHandler(deps.logger));
  return app;
}

/** A 404 naming the request that matched no route. */
const noSuchEndpoint: RequestHandler = (req, _res, next) =>
  next(new HttpError(404, `no such endpoint: ${req.method} ${req.baseUrl}${req.path}`));
