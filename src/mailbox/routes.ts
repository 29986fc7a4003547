import { Router } from 'express';
import type { Pool } from 'pg';

/** Drafts, labels and messages under `/api`. */
export function mailboxRouter(_pool: Pool): Router {
  return Router();
}
