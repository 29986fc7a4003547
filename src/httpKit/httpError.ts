/**
 * The leaf that every router imports to read a request (this folder): nothing here imports a room
 * above it, so the app (http/) can import the routers of alerts/ and mailbox/ while they import
 * this, and no two folders import each other.
 */

/** An error whose message is meant for the API client, with the status to answer. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
