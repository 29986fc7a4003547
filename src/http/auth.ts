import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

/**
 * Guards a router with a bearer token. Both sides are hashed before the constant-time compare so
 * that neither the token's content nor its length leaks through timing.
 */
export function requireBearerToken(token: string): RequestHandler {
  const matches = bearerTokenCheck(token);
  return (req, res, next) => {
    if (matches(req.headers.authorization)) {
      next();
      return;
    }
    const match = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    res
      .status(401)
      .set('WWW-Authenticate', 'Bearer realm="crondeck"')
      .json({ error: match ? 'invalid API token' : 'missing API token: send Authorization: Bearer <token>' });
  };
}

/** Whether an Authorization header carries `token` as its bearer token (constant-time). */
export function bearerTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = sha256(token);
  return (authorization) => {
    const match = /^Bearer (.+)$/i.exec(authorization ?? '');
    return Boolean(match?.[1] && timingSafeEqual(sha256(match[1]), expected));
  };
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
