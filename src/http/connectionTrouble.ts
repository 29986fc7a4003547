import type { Server } from 'node:http';
import type { Logger } from '../logging/logger';

/** At most one line per kind of trouble in this time: a flood must not become a flood of logs. */
const REPORT_INTERVAL_MS = 60_000;

/**
 * Reports what a listening server meets and survives: connections closed at the limit ('drop') and
 * connections it could not accept ('error' after listen: EMFILE, ENFILE, ENOBUFS), which would end
 * the process as an unhandled 'error'. The first of a kind is logged at once, the rest counted and
 * logged at most once a minute.
 */
export function reportConnectionTrouble(
  server: Server,
  logger: Logger,
  intervalMs = REPORT_INTERVAL_MS,
): { stop(): void } {
  const dropped = throttled(intervalMs, (count) =>
    logger.warn('connection limit reached: new connections are closed as they arrive', {
      maxConnections: server.maxConnections,
      dropped: count,
    }),
  );
  let lastError: Error | null = null;
  const failed = throttled(intervalMs, (count) =>
    logger.error('could not accept connections', { err: lastError, failures: count }),
  );
  const onDrop = () => dropped.add();
  const onError = (error: Error) => {
    lastError = error;
    failed.add();
  };
  server.on('drop', onDrop);
  server.on('error', onError);
  return {
    stop() {
      server.off('drop', onDrop);
      server.off('error', onError);
      dropped.flush();
      failed.flush();
    },
  };
}

/** Counts events; reports the first at once, then the count at most once per interval. */
function throttled(intervalMs: number, report: (count: number) => void) {
  let pending = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending > 0) report(pending);
    pending = 0;
  };
  return {
    add() {
      pending++;
      if (timer) return;
      flush();
      timer = setTimeout(flush, intervalMs);
      timer.unref();
    },
    flush,
  };
}
