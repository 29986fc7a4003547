import { readFileSync } from 'node:fs';
import type { Logger } from '../logging/logger';

/**
 * Descriptors the service needs besides its HTTP connections: the database (the embedded one's
 * files, or a server's pools), two pipes for each running job, the log. A connection limit that
 * leaves fewer than this under the open-file limit no longer protects them.
 */
const RESERVED_DESCRIPTORS = 256;

/**
 * The soft limit of open files of this process (`ulimit -n`; Node raises it to the hard limit at
 * start), from /proc; null where there is none (not Linux) or it says "unlimited".
 */
export function openFileLimit(limitsFile = '/proc/self/limits'): number | null {
  let text: string;
  try {
    text = readFileSync(limitsFile, 'utf8');
  } catch {
    return null;
  }
  const line = text.split('\n').find((entry) => entry.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  return soft && /^\d+$/.test(soft) ? Number(soft) : null;
}

/** Says so at start when SERVICE_MAX_CONNECTIONS leaves too few descriptors for the rest. */
export function warnAboveOpenFileLimit(
  maxConnections: number,
  logger: Logger,
  limit = openFileLimit(),
): void {
  if (limit === null || maxConnections + RESERVED_DESCRIPTORS <= limit) return;
  logger.warn(
    'SERVICE_MAX_CONNECTIONS leaves too few of the open-file limit for jobs and the database: lower it, or raise the limit (ulimit -n)',
    { maxConnections, openFileLimit: limit, reserved: RESERVED_DESCRIPTORS },
  );
}
