import type { JobService } from '../../scheduling/jobService';
import { bearerTokenCheck } from '../auth';
import type { FrontHandler } from '../server';
import { jobCreation } from './jobCreation';
import { jobRead } from './jobRead';

/**
 * The requests answered in front of the app, because they come often and the app's stack is most
 * of their cost: a job's read (polled by dashboards) and a job's creation (scripts and controllers
 * create thousands). Each takes only its plainest form and hands every other request, and every
 * failure, to the app (docs/development.md, "The front door").
 */
export function frontDoor(jobs: JobService, apiToken: string | null): FrontHandler {
  const authorized = apiToken === null ? () => true : bearerTokenCheck(apiToken);
  const read = jobRead(jobs, authorized);
  const create = jobCreation(jobs, authorized);
  return (req, res, toApp) => {
    if (req.method === 'GET') read(req, res, toApp);
    else if (req.method === 'POST') create(req, res, toApp);
    else toApp();
  };
}
