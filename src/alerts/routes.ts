import { Router } from 'express';
import { type AlertConfig, alertConfigSchema } from '../domain/alertConfig';
import { parseOrThrow, parsePathId } from '../httpKit/validate';

/** What the alert endpoints need. */
export interface AlertsApi {
  /**
   * The job's configuration, empty lists when it has none; not_found for an unknown job. A signed
   * webhook shows `signed: true`, never its secret.
   */
  get(jobId: number): Promise<AlertConfig>;
  /** Replaces the whole configuration; answers it as `get` shows it. */
  replace(jobId: number, config: AlertConfig): Promise<AlertConfig>;
  /** Removes webhooks and e-mails alike. */
  remove(jobId: number): Promise<void>;
}

/**
 * `GET|PUT|DELETE /api/jobs/:id/alerts`. The body is checked in full before anything is written,
 * so a rejected PUT leaves the previous configuration as it was.
 */
export function alertsRouter(alerts: AlertsApi): Router {
  const router = Router({ mergeParams: true });

  router.get('/', async (req, res) => {
    res.json(await alerts.get(parsePathId(req.params)));
  });

  router.put('/', async (req, res) => {
    const jobId = parsePathId(req.params);
    const config = parseOrThrow(alertConfigSchema, req.body);
    res.json(await alerts.replace(jobId, config));
  });

  router.delete('/', async (req, res) => {
    const jobId = parsePathId(req.params);
    await alerts.remove(jobId);
    res.json({ ok: true, jobId });
  });

  return router;
}
