import type { AttemptResult } from '../domain/execution';
import type { Logger } from '../logging/logger';
import { isTransactionConflict, isTransientDatabaseError } from '../store/transient';

/**
 * Records an attempt's result; when the database refuses it for a reason that retrying will not
 * cure (something in the output it cannot hold), records it again without the output, with a
 * note in stderr. Without this the row would stay `running`, uncounted and unalerted, and the
 * run's retries would never happen. Transient errors are left to the caller's retry loop.
 */
export async function recordWithOutputFallback<R extends AttemptResult, T>(
  result: R,
  record: (result: R) => Promise<T>,
  logger: Logger,
  context: Record<string, unknown>,
): Promise<T> {
  try {
    return await record(result);
  } catch (error) {
    // Only the database's own refusals (an SQLSTATE) can be about the output; a refusal of ours
    // (a report that came too late) would be refused again.
    if (!hasSqlState(error) || isTransientDatabaseError(error) || isTransactionConflict(error)) throw error;
    logger.error('could not record an attempt with its output; recording it without', {
      ...context,
      err: error,
    });
    const code = (error as { code?: unknown }).code;
    const note = `[crondeck] the output of this attempt could not be stored (database error${
      typeof code === 'string' ? ` ${code}` : ''
    }); it was dropped\n`;
    return record({ ...result, stdout: '', stderr: note });
  }
}

function hasSqlState(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}
