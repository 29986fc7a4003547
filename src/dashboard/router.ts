import { Router } from 'express';

/** The web dashboard at `/`. */
export function dashboardRouter(): Router {
  return Router();
}
