import { Router } from 'express';
import { z } from 'zod';
import { type AlertConfig, alertConfigSchema } from '../domain/alertConfig';
import { parseOrThrow, parsePathId } from '../httpKit/validate';
import type { AlertHistoryEntry } from '../store/alerts';

const MAX_HISTORY = 500;

const historyQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^[0-9]+$/, { error: `must be a whole number from 1 to ${MAX_HISTORY}` })
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_HISTORY, { error: `must be a whole number from 1 to ${MAX_HISTORY}` })
    .optional(),
});

/** One alert of a job's history as the API shows it. */
export interface AlertHistoryItem extends AlertHistoryEntry {
  /** Where it went, fit to show a person: a webhook's secrets left out (see `destinationName`). */
  destinationName: string;
}

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
  /** The job's alerts, newest first, muted and suppressed ones included; not_found for an unknown job. */
  history(jobId: number, limit: number): Promise<AlertHistoryItem[]>;
}

/**
 * `GET|PUT|DELETE /api/jobs/:id/alerts` and `GET /api/jobs/:id/alerts/history`. The body is checked in full before anything is written,
 * so a rejected PUT leaves the previous configuration as it was.
 */
export function alertsRouter(alerts: AlertsApi): Router {
  const router = Router({ mergeParams: true });

  router.get('/', async (req, res) => {
    res.json(await alerts.get(parsePathId(req.params)));
  });

  // What was sent, what failed, and what the job's policy muted or suppressed, with why.
  router.get('/history', async (req, res) => {
    const jobId = parsePathId(req.params);
    const { limit } = parseOrThrow(historyQuerySchema, req.query);
    res.json(await alerts.history(jobId, limit ?? 50));
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
