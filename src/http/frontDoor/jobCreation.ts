import type { IncomingMessage } from 'node:http';
import { jobInputSchema } from '../../domain/job';
import { badRequest } from '../../httpKit/httpError';
import { parseOrThrow } from '../../httpKit/validate';
import type { JobService } from '../../scheduling/jobService';
import { BODY_LIMIT_BYTES, NOT_JSON_MESSAGE } from '../jsonBodies';
import { renderJob } from '../routes/jobs';
import type { FrontHandler } from '../server';
import { answerJson } from './answerJson';
import { handOffFailure } from './handOff';

/**
 * `POST /api/jobs`, taken in front of Express when its request is of the plainest form.
 *
 * Through Express a creation spends about a fifth of the service's CPU in the stack around it
 * (the router's walk past a dozen layers, CORS, type checks, the body parser's stream, `res.json`);
 * under a stream of creations that fifth bounds how many a second one process answers
 * (docs/benchmarks/where-the-time-goes.md). Here the body is read, parsed and validated with the
 * route's schema, the job created by the same JobService call and answered with the same bytes and
 * headers as the route answers.
 *
 * Taken only when the headers leave nothing for the app's middleware to decide: an exact path, a
 * JSON body in UTF-8 of a declared length within the limit, not compressed, and the right token
 * when the API has one. Everything else goes to the app untouched. Every failure of a request taken
 * (a body that is not JSON, a field the schema refuses, a name taken, a database down) is handed to
 * the app's error handlers (`handOffFailure`), so errors have one implementation.
 */
export function jobCreation(
  jobs: JobService,
  authorized: (authorization: string | undefined) => boolean,
): FrontHandler {
  return (req, res, toApp) => {
    if (req.url !== '/api/jobs' || !plainJsonBody(req) || !authorized(req.headers.authorization)) {
      toApp();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A request that fails before its end (the client went away) has no one to answer.
    req.once('end', () => {
      let input;
      try {
        input = parseOrThrow(jobInputSchema, parseJson(Buffer.concat(chunks)));
      } catch (error) {
        handOffFailure(req, error);
        toApp();
        return;
      }
      jobs.create(input).then(
        (job) => answerJson(res, 201, renderJob(job)),
        (error: unknown) => {
          handOffFailure(req, error);
          toApp();
        },
      );
    });
  };
}

/**
 * A body the app's JSON parser would read as it is: declared `application/json`, in UTF-8 if a
 * charset is named, of a length given and within the limit, not chunked, not compressed. (The
 * parser also takes other UTF charsets and compressed bodies: those go to it.)
 */
function plainJsonBody(req: IncomingMessage): boolean {
  const { headers } = req;
  const [type, ...parameters] = (headers['content-type'] ?? '')
    .split(';')
    .map((part) => part.trim().toLowerCase());
  if (type !== 'application/json' || !parameters.every((parameter) => parameter === 'charset=utf-8'))
    return false;
  const length = headers['content-length'] ?? '';
  if (!/^[0-9]{1,7}$/.test(length) || Number(length) === 0 || Number(length) > BODY_LIMIT_BYTES) return false;
  const encoding = headers['content-encoding'];
  return headers['transfer-encoding'] === undefined && (encoding === undefined || encoding === 'identity');
}

/**
 * The body as the app's parser reads it: UTF-8 with a leading byte-order mark dropped (as its
 * decoder drops one), any JSON value.
 */
function parseJson(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw badRequest(NOT_JSON_MESSAGE);
  }
}
