import { parse as parseQueryString } from 'node:querystring';
import type { ExecutionLists } from '../../caching/executionLists';
import type { ExecutionQuery } from '../../store/executions';
import { executionListQuerySchema, renderExecutionList } from '../routes/executions';
import type { FrontHandler } from '../server';
import { answerJson } from './answerJson';
import { isPlainRead } from './plainRead';
import { freshnessAsked } from '../readFreshness';

/** The only requests answered here: `GET /api/executions`, with or without a query string. */
const EXECUTION_LIST = /^\/api\/executions(?:\?(.*))?$/s;

/** Query strings whose reading is kept; past this, the one read longest ago is dropped. */
const MAX_QUERIES_KEPT = 64;

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
  const readQuery = keptQueryReadings();
  return (req, res, toApp) => {
    const match = isPlainRead(req) ? EXECUTION_LIST.exec(req.url ?? '') : null;
    const query = match ? readQuery(match[1] ?? '') : null;
    if (!query || !authorized(req.headers.authorization)) {
      toApp();
      return;
    }
    lists.get(query, renderExecutionList, freshnessAsked(req)).then(
      (body) => answerJson(res, 200, body),
      // The app reads again and answers the failure (503, 500) as it answers any other.
      toApp,
    );
  };
}

/**
 * The route's reading of a query string (null where its schema refuses it), kept by the string:
 * dashboards poll the same few, and parsing and validating one cost a polled page about a fifth of
 * its CPU. The reading is a pure function of the string, so a kept one is what a new one would be.
 */
function keptQueryReadings(): (raw: string) => ExecutionQuery | null {
  const kept = new Map<string, ExecutionQuery | null>();
  return (raw) => {
    let query = kept.get(raw);
    if (query === undefined) {
      const read = executionListQuerySchema.safeParse(parseQueryString(raw));
      // One namespace's runs (`?namespace=`) are the app's to list.
      query = read.success && read.data.namespace === undefined ? Object.freeze(read.data) : null;
      if (kept.size >= MAX_QUERIES_KEPT) kept.delete(kept.keys().next().value!);
      kept.set(raw, query);
    }
    return query;
  };
}
