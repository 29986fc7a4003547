import { Router } from 'express';

/** What the alert endpoints need; filled in by the alerting issue. */
export type AlertsApi = Record<string, never>;

/** `GET|PUT|DELETE /api/jobs/:id/alerts`. */
export function alertsRouter(_alerts: AlertsApi): Router {
  return Router({ mergeParams: true });
}
