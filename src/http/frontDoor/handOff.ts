import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

/** Where the front door leaves what went wrong with a request it took, for the app to answer. */
const FAILURE = Symbol('crondeck.frontDoorFailure');

type WithFailure = IncomingMessage & { [FAILURE]?: unknown };

/**
 * Leaves `error` on a request the front door took and could not answer (a body that is not JSON,
 * a refused creation), before it hands the request to the app: the app answers it through its one
 * error handler, as it would have answered the same failure in its own route.
 */
export function handOffFailure(req: IncomingMessage, error: unknown): void {
  (req as WithFailure)[FAILURE] = error;
}

/**
 * The app's side of `handOffFailure`, right after CORS (so the answer carries its headers as every
 * answer of the app does): a request that comes with a failure goes straight to the error handlers.
 */
export function frontDoorFailures(): RequestHandler {
  return (req, _res, next) => {
    const failed = req as WithFailure;
    if (!(FAILURE in failed)) return next();
    const error = failed[FAILURE];
    delete failed[FAILURE];
    next(error);
  };
}
