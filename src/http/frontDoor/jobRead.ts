import { MAX_PATH_ID } from '../../httpKit/validate';
import type { JobService } from '../../scheduling/jobService';
import { renderJob } from '../routes/jobs';
import type { FrontHandler } from '../server';
import { freshnessAsked } from '../readFreshness';
import { answerJson } from './answerJson';
import { isPlainRead } from './plainRead';

/** The only requests answered here: `GET /api/jobs/<digits>`, with or without a query string. */
const JOB_READ = /^\/api\/jobs\/([0-9]+)(?:\?|$)/;

/**
 * `GET /api/jobs/:id` (a GET: the front door dispatches by method), answered in front of Express
 * when its kept rendering is current.
 *
 * A dashboard polls this read, and most of its cost through Express is the stack around it (the
 * CORS and body-parser middleware, routing, `res.send`), not the job: the rendering it answers is
 * kept by JobService and checked against the job list's version, one shared database read for the
 * requests that arrive together (caching/jobRenders.ts). Here the same rendering leaves with the
 * same status and headers as through the app, in the order the app sets them. A `recent` read
 * (http/readFreshness.ts) whose rendering needs no round trip to prove it is answered in the same
 * turn, without a promise.
 *
 * Only the plainest form is taken: an unconditional GET without a body, the path exactly as the
 * route spells it (Express also matches other cases, a trailing slash, percent-encoded digits), a
 * valid id and, when the API has a token, the right one. Everything else, and every failure (no such job, a database
 * error), goes to the app untouched, which answers it as it always does: errors, 401s and CORS
 * preflights have one implementation.
 */
export function jobRead(
  jobs: JobService,
  authorized: (authorization: string | undefined) => boolean,
): FrontHandler {
  return (req, res, toApp) => {
    const match = isPlainRead(req) ? JOB_READ.exec(req.url ?? '') : null;
    // The route's pathIdSchema, for digits: 1 to MAX_PATH_ID (the app answers the rest).
    const id = match ? Number(match[1]) : 0;
    if (id < 1 || id > MAX_PATH_ID || !authorized(req.headers.authorization)) {
      toApp();
      return;
    }
    const freshness = freshnessAsked(req);
    const recent = freshness === 'recent' ? jobs.recentRendering<Buffer>(id) : undefined;
    if (recent) {
      answerJson(res, 200, recent);
      return;
    }
    // Not answerable at once: proven as a current read is (the recent check was just made).
    jobs.getRendered(id, renderJob, 'current').then(
      (body) => answerJson(res, 200, body),
      // The app reads again and answers the failure (404, 503, 500) as it answers any other.
      toApp,
    );
  };
}
