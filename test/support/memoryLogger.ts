import { createLogger, type LogFields, type Logger } from '../../src/logging/logger';

/** A logger that records lines in memory; tests read them back. */
export function createMemoryLogger(): Logger & { lines: LogFields[] } {
  const lines: LogFields[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => lines.push(JSON.parse(line) as LogFields) });
  return Object.assign(logger, { lines });
}
