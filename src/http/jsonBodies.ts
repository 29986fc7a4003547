/** Largest request body accepted; anything bigger is answered 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The answer (400) to a body declared JSON that does not parse. */
export const NOT_JSON_MESSAGE = 'request body is not valid JSON';
