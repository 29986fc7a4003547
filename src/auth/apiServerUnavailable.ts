import type { ErrorRequestHandler } from 'express';

/**
 * The cluster's API server could not review a request: it did not answer within the timeout, could
 * not be reached, or answered with an error. The request is refused with 503 (never allowed
 * unchecked), naming the API server; nothing of it is cached.
 */
export class ApiServerUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApiServerUnavailableError';
  }
}

/** 503 naming the API server: a request it could not review is refused, and may be sent again. */
export const apiServerUnavailableHandler: ErrorRequestHandler = (error, _req, res, next) => {
  if (!(error instanceof ApiServerUnavailableError)) return next(error);
  res.status(503).set('Retry-After', '5').json({ error: error.message });
};
