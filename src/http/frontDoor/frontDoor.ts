import type { ExecutionLists } from '../../caching/executionLists';
import type { JobService } from '../../scheduling/jobService';
import { bearerTokenCheck } from '../auth';
import { foreignBrowserRefusal } from '../localBrowsersOnly';
import type { FrontHandler } from '../server';
import { executionList } from './executionList';
import { jobCreation } from './jobCreation';
import { jobRead } from './jobRead';

/** What the front door answers from: the same parts the routes use. */
export interface FrontDoorParts {
  jobs: JobService;
  executionLists: ExecutionLists;
}

/**
 * The requests answered in front of the app, because they come often and the app's stack is most
 * of their cost: a job's read and the executions list (polled by dashboards), and a job's creation
 * (scripts and controllers create thousands). Each takes only its plainest form and hands every
 * other request, every failure, and (without a token) every request the app refuses for coming from
 * another site, to the app (docs/development.md, "The front door").
 */
export function frontDoor(parts: FrontDoorParts, apiToken: string | null): FrontHandler {
  const authorized = apiToken === null ? () => true : bearerTokenCheck(apiToken);
  const read = jobRead(parts.jobs, authorized);
  const list = executionList(parts.executionLists, authorized);
  const create = jobCreation(parts.jobs, authorized);
  return (req, res, toApp) => {
    // Without a token the app refuses requests of other sites (localBrowsersOnly.ts): they are its.
    if (apiToken === null && foreignBrowserRefusal(req) !== null) toApp();
    else if (req.method === 'GET') (req.url?.startsWith('/api/executions') ? list : read)(req, res, toApp);
    else if (req.method === 'POST') create(req, res, toApp);
    else toApp();
  };
}
