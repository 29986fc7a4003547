/**
 * The longest bearer token taken, in bytes. A ServiceAccount token is about 1 KB and an OIDC ID
 * token a few; anything longer is refused here (401) rather than sent on to the API server. (Node
 * refuses a request whose headers pass 16 KB before it gets here: 431.)
 */
export const MAX_TOKEN_BYTES = 8192;

/** `Authorization: Bearer <token>`, the token being visible ASCII without spaces (RFC 6750's b64token and more). */
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/** Room for `Bearer` and the spaces around the token in a header that is not too long. */
const MAX_SCHEME_AND_SPACES = 64;

/** A request's bearer token, or why it has none that can be reviewed (a 401's message). */
export type BearerToken = { token: string } | { refusal: string };

/**
 * Reads the bearer token of an Authorization header, and nothing of the token itself: only the
 * cluster's API server says whose it is (TokenReview). Checked before it goes anywhere: its shape
 * and its size.
 */
export function readBearerToken(authorization: string | undefined): BearerToken {
  if (authorization === undefined || authorization.trim() === '') {
    return {
      refusal:
        'missing bearer token: send Authorization: Bearer <token> with a token the cluster accepts ' +
        '(a ServiceAccount token, e.g. from kubectl create token, or an OIDC ID token)',
    };
  }
  // Node hands header values over as latin1 strings: a character is a byte.
  const tooLong = { refusal: `the bearer token is longer than ${MAX_TOKEN_BYTES} bytes` };
  if (authorization.length > MAX_TOKEN_BYTES + MAX_SCHEME_AND_SPACES) return tooLong;
  const match = BEARER.exec(authorization);
  if (!match) return { refusal: 'malformed Authorization header: send Authorization: Bearer <token>' };
  return match[1]!.length > MAX_TOKEN_BYTES ? tooLong : { token: match[1]! };
}
