import type { ErrorRequestHandler } from 'express';
import { DomainError, type DomainErrorKind } from '../domain/errors';
import type { Logger } from '../logging/logger';
import { HttpError } from '../httpKit/httpError';
import { NOT_JSON_MESSAGE } from './jsonBodies';
import { isTransactionConflict, isTransientDatabaseError } from '../store/transient';

export const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
};

/**
 * The one error handler: every failure leaves as `{ "error": message }`. Body-parser errors carry
 * their own status (400 for bad JSON, 413 for a body over the limit); anything unexpected is a 500
 * whose details go to the log, not to the client.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (error instanceof HttpError) {
      res.status(error.status).json({ error: error.message });
      return;
    }
    if (error instanceof DomainError) {
      res.status(STATUS_OF_KIND[error.kind]).json({ error: error.message });
      return;
    }
    if (error instanceof URIError) {
      // Express could not decode a path parameter; its own message does not say what to fix.
      res.status(400).json({ error: 'the path is not valid percent-encoded UTF-8' });
      return;
    }
    const parserError = error as { type?: string; status?: number; limit?: number };
    switch (parserError.type) {
      case 'entity.parse.failed':
        res.status(400).json({ error: NOT_JSON_MESSAGE });
        return;
      case 'entity.too.large':
        res
          .status(413)
          .json({ error: `request body is larger than the limit of ${parserError.limit} bytes` });
        return;
      case 'encoding.unsupported':
      case 'charset.unsupported':
        res.status(415).json({ error: 'request body encoding is not supported' });
        return;
    }
    if (typeof parserError.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
      res.status(parserError.status).json({ error: (error as Error).message });
      return;
    }
    if (isTransientDatabaseError(error)) {
      logger.warn('database unavailable', { method: req.method, path: req.path, err: error });
      res.status(503).set('Retry-After', '5').json({ error: 'database unavailable, try again shortly' });
      return;
    }
    if (isTransactionConflict(error)) {
      logger.warn('request met a concurrent write', { method: req.method, path: req.path, err: error });
      res
        .status(503)
        .set('Retry-After', '1')
        .json({ error: 'a concurrent change got in the way, try again' });
      return;
    }
    logger.error('request failed', { method: req.method, path: req.path, err: error });
    res.status(500).json({ error: 'internal error' });
  };
}
