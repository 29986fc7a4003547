import { parse as parseQueryString } from 'node:querystring';
import type { ExecutionLists } from '../../caching/executionLists';
import { executionListQuerySchema, renderExecutionList } from '../routes/executions';
import type { FrontHandler } from '../server';
import { answerJson } from './answerJson';
import { isPlainRead } from './plainRead';

/** The only requests answered here: `GET /api/executions`, with or without a query string. */
const EXECUTION_LIST = /^\/api\/executions(?:\?(.*))?$/s;

/**
 * `GET /api/executions` (a GET: the front door dispatches by method), answered in front of Express
 * from the page the route would answer.
 *
 * Dashboards poll the list, and through Express half of a kept page's cost is the stack around it
 * (docs/benchmarks/where-the-time-goes.md). The page comes from the same `ExecutionLists` as the
 * route's, checked against the list's version, with the query read as Express reads it
 * (node:querystring) and validated by the route's schema.
 *
 * Only the plainest form is taken: an unconditional GET without a body, the path exactly as the
 * route spells it, a query the schema takes and, when the API has a token, the right one.
 * Everything else (a refused query, a trailing slash, a failure reading the page) goes to the app
 * untouched, which answers it as it always does.
 */
export function executionList(
  lists: ExecutionLists,
  authorized: (authorization: string | undefined) => boolean,
): FrontHandler {
  return (req, res, toApp) => {
    const match = isPlainRead(req) ? EXECUTION_LIST.exec(req.url ?? '') : null;
    const query = match ? executionListQuerySchema.safeParse(parseQueryString(match[1] ?? '')) : undefined;
    if (!query?.success || !authorized(req.headers.authorization)) {
      toApp();
      return;
    }
    lists.get(query.data, renderExecutionList).then(
      (body) => answerJson(res, 200, body),
      // The app reads again and answers the failure (503, 500) as it answers any other.
      toApp,
    );
  };
}
