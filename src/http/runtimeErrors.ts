import type { ErrorRequestHandler } from 'express';
import type { Logger } from '../logging/logger';
import { RuntimeRefusedError } from '../runtime/runtimeRefused';

/**
 * Answers a change the runtime refused with 503 and the runtime's reason: the request was fine
 * and nothing was changed, so the client may try again. Other errors go on to the error handler.
 */
export function runtimeErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (!(error instanceof RuntimeRefusedError)) {
      next(error);
      return;
    }
    logger.warn('the runtime refused a change', { method: req.method, path: req.path, err: error });
    res.status(503).set('Retry-After', '5').json({ error: error.message });
  };
}
