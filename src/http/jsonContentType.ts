import type { RequestHandler } from 'express';
import { HttpError } from '../httpKit/httpError';

const JSON_CONTENT_TYPE_MESSAGE = 'Content-Type must be application/json';

/**
 * A request that carries a body in another type than JSON is answered 415 naming the type
 * expected. Without this, express.json leaves such a body unread and the route's schema would say
 * "request body must be a JSON object" about a body that may well be one. Routes that take other
 * types (`/messages` takes message/rfc822) are listed in `exempt` and answer for themselves.
 */
export function requireJsonContentType(exempt: string[]): RequestHandler {
  return (req, _res, next) => {
    if (!hasBody(req.headers) || req.is('application/json')) return next();
    if (exempt.some((prefix) => req.path === prefix || req.path.startsWith(`${prefix}/`))) return next();
    next(new HttpError(415, JSON_CONTENT_TYPE_MESSAGE));
  };
}

/** A body of at least one byte; `Content-Length: 0` (curl -d '', an empty POST) is no body. */
function hasBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = Number(headers['content-length'] ?? 0);
  return !(length === 0);
}
