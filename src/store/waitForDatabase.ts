import type { Logger } from '../logging/logger';
import type { Database } from './database';
import { isTransientDatabaseError, retryWhileUnavailable } from './transient';

/** A connection that gets no answer in this long is given up, and tried again while the wait lasts. */
const MAX_ATTEMPT_MS = 10_000;
/** Even the last attempt, or the only one of a wait of 0, gets this long. */
const MIN_ATTEMPT_MS = 2_000;

export interface DatabaseWait {
  /** How long to keep trying (SERVICE_DATABASE_WAIT_SECONDS); 0: one attempt. */
  waitSeconds: number;
  logger: Logger;
}

/**
 * Returns once the database server takes a session. A server that is not there yet (refused, its
 * host name not found yet, starting up, full, silent) is tried again after 0.5 s, doubling to 5 s,
 * with a line in the log each time, until `waitSeconds` have passed; then, or at once for anything
 * waiting cannot mend (a password refused, no such database, a URL that cannot be read), this
 * throws a message saying what to change. On a fresh install the database starts beside the
 * service: without the wait, the service would exit and be restarted with a growing back-off.
 * The embedded database runs in this process: there is nothing to wait for.
 */
export async function waitForDatabase(db: Database, { waitSeconds, logger }: DatabaseWait): Promise<void> {
  const server = db.server;
  if (!server) return;
  const budgetMs = waitSeconds * 1000;
  const deadline = Date.now() + budgetMs;
  const attemptMs = () => Math.min(MAX_ATTEMPT_MS, Math.max(MIN_ATTEMPT_MS, deadline - Date.now()));
  try {
    await retryWhileUnavailable(() => server.checkSession(attemptMs()), {
      budgetMs,
      initialDelayMs: 500,
      onRetry: (error, delayMs) =>
        logger.warn(
          `waiting for the database at ${server.address}: ${reasonOf(error)}; retrying in ${delayMs / 1000} s`,
          { database: server.address, code: codeOf(error) },
        ),
    });
  } catch (error) {
    if (isTransientDatabaseError(error)) {
      throw new Error(
        `the database at ${server.address} did not accept a connection within ` +
          `SERVICE_DATABASE_WAIT_SECONDS=${waitSeconds} s: ${reasonOf(error)}`,
        { cause: error },
      );
    }
    if (!server.address) throw error;
    throw new Error(
      `cannot connect to the database at ${server.address}: ${reasonOf(error)} ` +
        '(not retried: waiting cannot mend it; check DATABASE_URL)',
      { cause: error },
    );
  }
}

/** The error's words; a connection to every address of a host name fails as one with none of its own. */
function reasonOf(error: unknown): string {
  const { message, code, errors } = error as { message?: string; code?: string; errors?: unknown[] };
  if (message) return message;
  const each = (errors ?? []).map((inner) => (inner as Error)?.message).filter(Boolean);
  return each.length > 0 ? each.join('; ') : (code ?? String(error));
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
