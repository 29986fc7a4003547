import { Router } from 'express';
import type { Pool } from 'pg';
import { draftsRouter } from './drafts/draftsRouter';
import { filtersRouter } from './filters/filtersRouter';
import { labelsRouter } from './labels/labelsRouter';
import { labelingRouter } from './messages/labelingRouter';
import { messagesRouter } from './messages/messagesRouter';

/**
 * Drafts, labels and messages under `/api`. The filters come before the label routes so that
 * `/labels/filter` is never read as a label id. They run on `genericPlanPool`, whose connections
 * plan each of their prepared statements once (see `Database.genericPlanPool`).
 */
export function mailboxRouter(pool: Pool, genericPlanPool: Pool): Router {
  const router = Router();
  router.use('/drafts', draftsRouter(pool));
  router.use('/labels', filtersRouter(genericPlanPool), labelingRouter(pool), labelsRouter(pool));
  router.use('/messages', messagesRouter(pool));
  return router;
}
