import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

/**
 * Guards a router with a bearer token. Both sides are hashed before the constant-time compare so
 * that neither the token's content nor its length leaks through timing.
 */
export function requireBearerToken(token: string): RequestHandler {
  const expected = sha256(token);
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer (.+)$/i.exec(header);
    if (match?.[1] && timingSafeEqual(sha256(match[1]), expected)) {
      next();
      return;
    }
    res
      .status(401)
      .set('WWW-Authenticate', 'Bearer realm="crondeck"')
      .json({ error: match ? 'invalid API token' : 'missing API token: send Authorization: Bearer <token>' });
  };
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
